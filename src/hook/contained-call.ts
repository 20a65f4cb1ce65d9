import type { Runtime } from "../cli/build-runtime.js";
import type {
  NetworkApprover,
  NetworkCall,
  NetworkConnection,
} from "../sandbox/network/network-connection.js";
import { NETWORK_CONNECTION_MESSAGE } from "../sandbox/network/read-network-connection.js";

/** What a contained command's network is tied to: the hooked call it runs for. */
export interface ContainedCallNetwork {
  readonly call: NetworkCall;
  /** Answers its ask rules through the approval queue; undefined when nobody can. */
  readonly approve: NetworkApprover | undefined;
  /** Writes one connection into that call's trail. */
  readonly record: (connection: NetworkConnection) => Promise<void>;
}

/** The hooked call a contained command belongs to, or why it is tied to none. */
export type ContainedCall =
  | { readonly status: "bound"; readonly network: ContainedCallNetwork }
  | { readonly status: "unbound"; readonly reason: string };

/**
 * Tie `docket hook exec`'s command to the hooked call the hook rewrote it for (`--session`,
 * `--call`): only a call the store holds in that session, so a line written by hand cannot borrow
 * another session's grants. Its connections then land in that call's signed trail and its ask
 * network rules become approval requests of that call, its agent (the host) unable to answer
 * them; without a bound call an ask is refused.
 *
 * @example
 * ```ts
 * import type { Runtime } from "../cli/build-runtime.js";
 * declare const runtime: Runtime;
 * const bound = await containedCall(runtime, { sessionId: "s1", callId: "toolu_1" });
 * // { status: "bound", network: { call: { callId: "toolu_1", sessionId: "s1", principal: "claude-code" }, … } }
 * ```
 */
export async function containedCall(
  runtime: Pick<Runtime, "store" | "networkApprover">,
  { sessionId, callId }: { readonly sessionId?: string; readonly callId?: string },
): Promise<ContainedCall> {
  if (sessionId === undefined || callId === undefined) {
    return { status: "unbound", reason: "the line names no hooked call (--session, --call)" };
  }
  let found: Awaited<ReturnType<Runtime["store"]["listCalls"]>>[number] | undefined;
  try {
    [found] = await runtime.store.listCalls({ sessionId, callId, limit: 1 });
  } catch (error) {
    // Unread, the call binds nothing: its asks are refused, never answered unbound.
    return {
      status: "unbound",
      reason: `the store could not be read (${(error as Error).message})`,
    };
  }
  if (found === undefined) {
    return { status: "unbound", reason: `no call ${callId} in session ${sessionId}` };
  }
  const { store } = runtime;
  const call = { callId, sessionId, principal: found.principal ?? "hook" };
  return {
    status: "bound",
    network: {
      call,
      approve: runtime.networkApprover,
      record: (connection) =>
        store.emit({
          type: "log",
          callId,
          tool: found.tool,
          sessionId,
          at: Date.now(),
          message: NETWORK_CONNECTION_MESSAGE,
          data: connection,
        }),
    },
  };
}
