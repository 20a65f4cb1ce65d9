import type {
  NetworkApprover,
  NetworkCall,
  NetworkConnection,
} from "../sandbox/network/network-connection.js";
import { NETWORK_CONNECTION_MESSAGE } from "../sandbox/network/read-network-connection.js";

/** Where one call's trail takes a line: the call's `ctx.log`. */
export type CallLog = (message: string, data?: unknown) => void;

/** The calls an MCP server is serving now, to tie what the server does to them. */
export interface CallsInFlight {
  /**
   * A call starts: its log (and, for its network asks, its identity) joins the set until the
   * returned function is called.
   */
  enter(log: CallLog, call?: NetworkCall): () => void;
  /**
   * Record a connection the server's sandbox made in the trail of every call in flight now (the
   * server could have opened it for any of them), with the server's name. False when no call is
   * in flight: nothing in the trail could hold it.
   */
  record(connection: NetworkConnection): boolean;
  /**
   * `approve` bound to the call in flight when a connection asks (the earliest, when several
   * are): the ask is that call's, in its session, and its agent may not answer it. A connection
   * opened while no call is in flight is refused without asking (ADR 0069).
   */
  approver(approve: NetworkApprover): NetworkApprover;
}

/**
 * Track the calls an MCP server serves, so that each connection its sandbox opens through
 * docket's proxy lands in the signed trail of the call (or calls) being served, as the
 * connections of `run_command` do, rather than only in the operator's log; and so that an ask
 * network rule's approval request names the call it holds up.
 *
 * @example
 * ```ts
 * import type { NetworkConnection } from "../sandbox/network/network-connection.js";
 * declare const log: CallLog;
 * declare const connection: NetworkConnection;
 * const calls = createCallsInFlight("web");
 * const leave = calls.enter(log, { callId: "c1", sessionId: "s1", principal: "agent" });
 * calls.record(connection); // a `network connection` log line of that call, server: "web"
 * leave(); // as it ends
 * ```
 */
export function createCallsInFlight(server: string): CallsInFlight {
  const entries = new Set<{ log: CallLog; call: NetworkCall | undefined }>();
  return {
    enter(log, call) {
      const entry = { log, call };
      entries.add(entry);
      return () => entries.delete(entry);
    },
    record(connection) {
      for (const { log } of entries) log(NETWORK_CONNECTION_MESSAGE, { ...connection, server });
      return entries.size > 0;
    },
    approver(approve) {
      return async (request, signal) => {
        const call = request.call ?? [...entries].find((entry) => entry.call)?.call;
        if (call === undefined) {
          return {
            approved: false,
            reason: `the MCP server ${server} opened it while serving no call, so no call or session can hold the ask; list the host under allow to let it connect`,
          };
        }
        return approve({ ...request, call }, signal);
      };
    },
  };
}
