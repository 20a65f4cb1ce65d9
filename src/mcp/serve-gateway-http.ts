import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { hasBearerToken } from "./bearer-token.js";
import type { GatewayBackend } from "./gateway-backend.js";
import { createGatewayServer } from "./gateway-server.js";
import { readCappedBody } from "./read-capped-body.js";

/** Options for `serveGatewayHttp`. */
export interface HttpGatewayOptions {
  /** Clients must send `Authorization: Bearer <token>`. Required: there is no open mode. */
  readonly token: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly principal?: string;
  /** Largest request body accepted. Default 1 MiB (the checkpoint's argument cap). */
  readonly maxBodyBytes?: number;
  /**
   * Sessions kept at once (`gateway.max_sessions`, `--max-sessions`). Default 32. A new client
   * past it closes the least recently used idle session (no call in flight); when every session
   * has a call in flight, the new client is refused at initialize (503), and no call is cut.
   */
  readonly maxSessions?: number;
  readonly path?: string;
  /** See `GatewayServerOptions.heartbeatMs`. */
  readonly heartbeatMs?: number;
}

/** A running HTTP gateway. */
export interface HttpGateway {
  /** `http://127.0.0.1:PORT/mcp` */
  readonly url: string;
  readonly port: number;
  /** Close every session and stop listening. */
  close(): Promise<void>;
}

interface Session {
  readonly server: Server;
  readonly transport: StreamableHTTPServerTransport;
  /** POST requests being answered (a GET event stream does not make a session busy). */
  busy: number;
}

const HOST = "127.0.0.1";

function reply(res: ServerResponse, status: number, message: string, headers = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** The ids of the JSON-RPC requests in a POST body (one message or a batch). */
function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    return typeof method === "string" && (typeof id === "string" || typeof id === "number")
      ? [id]
      : [];
  });
}

/**
 * A client that drops the connection before its answer arrives has given up on the call, even
 * without sending `notifications/cancelled`: cancel it the same way, so that a call still
 * waiting for approval never runs (fail closed). Ids that already finished are ignored.
 */
function cancelOnDisconnect(
  transport: StreamableHTTPServerTransport,
  res: ServerResponse,
  body: unknown,
): void {
  const ids = requestIds(body);
  if (ids.length === 0) return;
  res.once("close", () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      transport.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "the client disconnected" },
      });
    }
  });
}

/**
 * Serve the gateway over Streamable HTTP on 127.0.0.1 only, behind a bearer token (compared in
 * constant time; 401 without it), with a cap on request bodies and one MCP session (one gateway
 * server) per client session.
 *
 * @example
 * ```ts
 * const gateway = await serveGatewayHttp(backend, { token: generateToken(), port: 8931 });
 * console.error(`listening on ${gateway.url}`);
 * ```
 */
export async function serveGatewayHttp(
  backend: GatewayBackend,
  {
    token,
    port = 0,
    principal,
    maxBodyBytes = 1024 * 1024,
    maxSessions = 32,
    path = "/mcp",
    heartbeatMs,
  }: HttpGatewayOptions,
): Promise<HttpGateway> {
  if (token.length < 16)
    throw new Error("the gateway's bearer token must have at least 16 characters");
  // Map order is use order: a session is moved to the end each time it is used.
  const sessions = new Map<string, Session>();
  const unsubscribe = backend.onToolsChanged?.(() => {
    for (const { server } of sessions.values()) void server.sendToolListChanged().catch(() => {});
  });

  const drop = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    void session.server.close().catch(() => {});
  };
  /** Ids closed to make room, so that their client is told why (not a bare 404). */
  const evicted = new Set<string>();

  /** Make room for one more: the least recently used idle session goes; false when none is idle. */
  const makeRoom = (): boolean => {
    while (sessions.size >= maxSessions) {
      const idle = [...sessions].find(([, session]) => session.busy === 0)?.[0];
      if (idle === undefined) return false;
      drop(idle);
      evicted.add(idle);
      // Bounded: only the latest evictions are remembered.
      if (evicted.size > maxSessions * 4) evicted.delete(evicted.values().next().value as string);
    }
    return true;
  };

  const open = async (): Promise<Session> => {
    const id = randomUUID();
    await backend.openSession?.(id, "http");
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    const server = createGatewayServer({
      checkpoint: backend.checkpoint,
      tools: () => backend.tools(),
      sessionId: id,
      ...(principal === undefined ? {} : { principal }),
      ...(heartbeatMs === undefined ? {} : { heartbeatMs }),
    });
    transport.onclose = () => drop(id);
    await server.connect(transport);
    const session: Session = { server, transport, busy: 0 };
    sessions.set(id, session);
    return session;
  };

  // Browsers reach 127.0.0.1 through DNS rebinding only under another Host name: refuse those.
  let allowedHosts = new Set<string>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!allowedHosts.has(req.headers.host ?? "")) return reply(res, 403, "Forbidden host");
    if (!hasBearerToken(req.headers.authorization, token)) {
      return reply(res, 401, "Unauthorized: send Authorization: Bearer <token>", {
        "www-authenticate": 'Bearer realm="docket-gateway"',
      });
    }
    if (new URL(req.url ?? "/", "http://localhost").pathname !== path) {
      return reply(res, 404, "Not found");
    }
    let body: unknown;
    if (req.method === "POST") {
      const read = await readCappedBody(req, maxBodyBytes);
      if (read.status === "too_large")
        return reply(res, 413, `Request body over ${maxBodyBytes} bytes`);
      try {
        body = JSON.parse(read.text);
      } catch {
        return reply(res, 400, "Parse error: the body is not JSON");
      }
    }
    const header = req.headers["mcp-session-id"];
    const id = Array.isArray(header) ? header[0] : header;
    let session = id === undefined ? undefined : sessions.get(id);
    if (id !== undefined && !session) {
      return reply(
        res,
        404,
        evicted.has(id)
          ? `Session not found: it was closed while idle to make room (the gateway keeps ${maxSessions} sessions); send initialize again`
          : "Session not found",
      );
    }
    if (session && id !== undefined) {
      sessions.delete(id);
      sessions.set(id, session);
    } else if (req.method === "POST" && isInitializeRequest(body)) {
      if (!makeRoom()) {
        return reply(
          res,
          503,
          `The gateway is at its cap of ${maxSessions} sessions and every one has a call in flight; try again shortly, or raise gateway.max_sessions (--max-sessions)`,
          { "retry-after": "1" },
        );
      }
      session = await open();
    } else {
      return reply(res, 400, "Bad request: no session (send initialize first)");
    }
    cancelOnDisconnect(session.transport, res, body);
    if (req.method === "POST") {
      const active = session;
      active.busy += 1;
      res.once("close", () => {
        active.busy -= 1;
      });
    }
    await session.transport.handleRequest(req, res, body);
  };

  const http = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, "Internal error");
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, HOST, () => resolve());
  });
  const bound = (http.address() as AddressInfo).port;
  allowedHosts = new Set([`127.0.0.1:${bound}`, `localhost:${bound}`]);

  return {
    url: `http://${HOST}:${bound}${path}`,
    port: bound,
    close: async () => {
      unsubscribe?.();
      for (const id of [...sessions.keys()]) drop(id);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
