import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { gatewaySessionEvent } from "../system-events/gateway-session-event.js";
import type { GatewayBackend } from "./gateway-backend.js";
import { createGatewayServer } from "./gateway-server.js";
import { StdioGatewayTransport } from "./stdio-gateway-transport.js";

/** Options for `serveGatewayStdio`. */
export interface StdioGatewayOptions {
  /** Who the client is. Default: the backend's principal (docket.yaml's `principal:`). */
  readonly principal?: string;
  /** Default: a new `gateway-<uuid>` per process. */
  readonly sessionId?: string;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** See `GatewayServerOptions.heartbeatMs`. */
  readonly heartbeatMs?: number;
}

/** A running stdio gateway. */
export interface StdioGateway {
  /** Settles when the client goes away (stdin ends) or `close()` is called. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * Serve the gateway to one client over stdin/stdout (how editors and desktop apps start MCP
 * servers). It ends when stdin ends; the backend is left for the caller to close.
 *
 * @example
 * ```ts
 * declare const backend: import("./gateway-backend.js").GatewayBackend;
 * const gateway = await serveGatewayStdio(backend);
 * await gateway.closed;
 * await backend.close();
 * ```
 */
export async function serveGatewayStdio(
  backend: GatewayBackend,
  {
    principal,
    sessionId = `gateway-${randomUUID()}`,
    stdin = process.stdin,
    stdout = process.stdout,
    heartbeatMs,
  }: StdioGatewayOptions = {},
): Promise<StdioGateway> {
  await backend.openSession?.(sessionId, "stdio");
  // The one client of this process, recorded as an HTTP client's session is: who, and when.
  const who = principal ?? backend.principal ?? "agent";
  const session = (status: "opened" | "closed") =>
    gatewaySessionEvent.event(
      { status, principal: who, client: null, address: null, mcpSession: sessionId },
      { sessionId },
    );
  await backend.recordSystemEvent?.(session("opened"));
  const server = createGatewayServer({
    checkpoint: backend.checkpoint,
    tools: () => backend.tools(),
    sessionId,
    principal: who,
    ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
  });
  const unsubscribe = backend.onToolsChanged?.(() => {
    void server.sendToolListChanged().catch(() => {});
  });
  let finish: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    finish = resolve;
  });
  let ended = false;
  server.onclose = () => {
    unsubscribe?.();
    if (!ended) {
      ended = true;
      void backend.recordSystemEvent?.(session("closed")).catch(() => {});
    }
    finish();
  };
  const close = async () => {
    await server.close();
    finish();
  };
  // The SDK's stdio transport does not notice the client leaving: end with stdin.
  stdin.once("end", () => void close());
  stdin.once("close", () => void close());
  await server.connect(new StdioGatewayTransport(stdin, stdout));
  return { closed, close };
}
