import type { NetworkConnection } from "../sandbox/network/network-connection.js";
import { NETWORK_CONNECTION_MESSAGE } from "../sandbox/network/read-network-connection.js";

/** Where one call's trail takes a line: the call's `ctx.log`. */
export type CallLog = (message: string, data?: unknown) => void;

/** The calls an MCP server is serving now, to tie what the server does to them. */
export interface CallsInFlight {
  /** A call starts: its log joins the set until the returned function is called. */
  enter(log: CallLog): () => void;
  /**
   * Record a connection the server's sandbox made in the trail of every call in flight now (the
   * server could have opened it for any of them), with the server's name. False when no call is
   * in flight: nothing in the trail could hold it.
   */
  record(connection: NetworkConnection): boolean;
}

/**
 * Track the calls an MCP server serves, so that each connection its sandbox opens through
 * docket's proxy lands in the signed trail of the call (or calls) being served, as the
 * connections of `run_command` do, rather than only in the operator's log.
 *
 * @example
 * ```ts
 * import type { NetworkConnection } from "../sandbox/network/network-connection.js";
 * declare const log: CallLog;
 * declare const connection: NetworkConnection;
 * const calls = createCallsInFlight("web");
 * const leave = calls.enter(log); // as a call to the server starts
 * calls.record(connection); // a `network connection` log line of that call, server: "web"
 * leave(); // as it ends
 * ```
 */
export function createCallsInFlight(server: string): CallsInFlight {
  const logs = new Set<{ log: CallLog }>();
  return {
    enter(log) {
      const entry = { log };
      logs.add(entry);
      return () => logs.delete(entry);
    },
    record(connection) {
      for (const { log } of logs) log(NETWORK_CONNECTION_MESSAGE, { ...connection, server });
      return logs.size > 0;
    },
  };
}
