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
  // Connections whose admission has begun and whose report has not been made: `close` waits for
  // them, so a call's outcome never goes out before its connections are on the trail.
  let unreported = 0;
  let allReported: (() => void) | undefined;
  const reported = () => {
    unreported -= 1;
    if (unreported === 0) allReported?.();
  };
  const admit = async (
    kind: "connect" | "http",
    host: string,
    port: number,
    signal: AbortSignal,
  ) => {
    unreported += 1;
    try {
      return await admitConnection(kind, host, port, signal, options);
    } catch (error) {
      // No admission, no report to wait for.
      reported();
      throw error;
    }
  };
  const report = (started: number) => (record: Omit<NetworkConnection, "durationMs">) => {
    try {
      options.onConnection(finish(record, started));
    } finally {
      reported();
    }
  };
  const server = createServer({ keepAlive: false }, (req, res) => {
    void forwardRequest(req, res, admit, report(performance.now()));
  });
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    open.add(client);
    client.once("close", () => open.delete(client));
    void tunnel(req, client, head, admit, open, report(performance.now()));
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
      // Each ended connection is reported from its sockets' close events, which come on later
      // turns of the event loop (a handle's close callback runs after setImmediate's): wait for
      // every report, bounded in case a connection's sockets never close.
      if (unreported > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, REPORT_WAIT_MS);
          allReported = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        allReported = undefined;
      }
    },
  };
}

/** The longest `close` waits for the reports of connections it ended. */
const REPORT_WAIT_MS = 5_000;

function finish(record: Omit<NetworkConnection, "durationMs">, started: number): NetworkConnection {
  return { ...record, durationMs: Math.round((performance.now() - started) * 10) / 10 };
}
