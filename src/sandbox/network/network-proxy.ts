import { createServer, type IncomingMessage } from "node:http";
import type { Server, Socket } from "node:net";
import type { Duplex } from "node:stream";
import { admitConnection } from "./admit-connection.js";
import type { NetworkApprover, NetworkCall, NetworkConnection } from "./network-connection.js";
import type { NetworkDecider } from "./network-rules.js";
import { forwardRequest, tunnel } from "./relay-connection.js";
import type { DestinationOptions } from "./resolve-destination.js";

/** What the proxy needs: how to decide, where to report. */
export interface NetworkProxyOptions {
  readonly decide: NetworkDecider;
  /** Called once per connection, when it has ended or was refused. Must not throw. */
  readonly onConnection: (connection: NetworkConnection) => void;
  /** Answers `ask` rules; without one an ask is refused. */
  readonly approve?: NetworkApprover | undefined;
  /** The call whose process this proxy serves: each ask names it (see `NetworkAskRequest`). */
  readonly call?: NetworkCall | undefined;
  /** How long an ask waits for an answer before the connection is refused (default 60 s). */
  readonly askTimeoutMs?: number;
  readonly destination?: DestinationOptions;
}

/** A proxy serving the listening sockets given to it. */
export interface NetworkProxy {
  /** Serve the connections of a listening socket (the one a sandbox's bootstrap handed over). */
  adopt(listener: Server): void;
  /** Stops listening, ends open connections and reports them. */
  close(): Promise<void>;
}

/**
 * The filtering proxy that is a sandbox's only way out: HTTP CONNECT tunnels (https, git over
 * https) and plain HTTP requests in absolute form, on the listening sockets it adopts. For each,
 * the host and port are decided by the network rules (`ask` waits for `approve`, up to
 * `askTimeoutMs`), the name is resolved here and checked against the address rules
 * (`resolveDestination`), and only then is the destination dialled, at the address just checked.
 * Every connection, refused ones included, is reported to `onConnection` with its bytes each way
 * and duration.
 *
 * @example
 * ```ts
 * import { compileNetworkRules } from "./network-rules.js";
 * declare const ctx: import("../../tool/tool.js").ToolContext; // the call's context
 * declare const listener: import("node:net").Server; // handed over by the sandbox's bootstrap
 * const proxy = createNetworkProxy({
 *   decide: compileNetworkRules([{ name: "project", allow: ["registry.npmjs.org"] }]),
 *   onConnection: (c) => ctx.log("network connection", c) });
 * proxy.adopt(listener);
 * await proxy.close();
 * ```
 */
export function createNetworkProxy(options: NetworkProxyOptions): NetworkProxy {
  const open = new Set<Socket | Duplex>();
  const listeners = new Set<Server>();
  const admit = (kind: "connect" | "http", host: string, port: number, signal: AbortSignal) =>
    admitConnection(kind, host, port, signal, options);
  const server = createServer({ keepAlive: false }, (req, res) => {
    const started = performance.now();
    void forwardRequest(req, res, admit, (record) => options.onConnection(finish(record, started)));
  });
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    const started = performance.now();
    void tunnel(req, client, head, admit, open, (record) =>
      options.onConnection(finish(record, started)),
    );
  });
  const accept = (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => open.delete(socket));
    server.emit("connection", socket);
  };
  return {
    adopt(listener) {
      listeners.add(listener);
      listener.on("connection", accept);
      listener.on("error", () => listener.close());
    },
    close: async () => {
      // A listener's close waits for its connections, so they are ended after it is called.
      const closed = [...listeners].map(
        (listener) => new Promise((resolve) => listener.close(resolve)),
      );
      for (const socket of open) socket.destroy();
      await Promise.all(closed);
      // The sockets' close events (which report each connection) fire on the next turns.
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

function finish(record: Omit<NetworkConnection, "durationMs">, started: number): NetworkConnection {
  return { ...record, durationMs: Math.round((performance.now() - started) * 10) / 10 };
}
