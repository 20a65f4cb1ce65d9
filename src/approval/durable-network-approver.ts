import { createHash } from "node:crypto";
import type {
  NetworkApprover,
  NetworkAskAnswer,
  NetworkAskRequest,
} from "../sandbox/network/network-connection.js";
import { canonicalJson } from "../shared/canonical-json.js";
import type { Store } from "../store/store.js";
import type { Tool } from "../tool/tool.js";
import type { ApprovalRequest, Approver } from "./approval.js";
import type { ApproverDirectory } from "./approver-directory.js";
import { approvalIdFor } from "./decide-approval.js";
import { createDurableApprover } from "./durable-approver.js";

/**
 * The name a connection's approval request carries in the queue (`docket approvals list`).
 *
 * @example
 * ```ts
 * import type { Store } from "../store/store.js";
 * declare const store: Store;
 * const asked = (await store.listApprovals({ status: "pending" })).filter(
 *   (approval) => approval.tool === NETWORK_APPROVAL_TOOL,
 * );
 * ```
 */
export const NETWORK_APPROVAL_TOOL = "sandbox_network";

// What a person is shown for a connection's request: a menu entry of its own, never a tool the
// model can call (it is in no tool set, and has no handler).
const NETWORK_ENTRY: Tool = {
  name: NETWORK_APPROVAL_TOOL,
  description:
    "A connection a sandboxed command opened through docket's network proxy, to the host and port shown, answered by an ask network rule.",
  inputSchema: {
    type: "object",
    properties: { host: { type: "string" }, port: { type: "integer" } },
    required: ["host", "port"],
    additionalProperties: false,
  },
  writes: true,
  timeoutMs: undefined,
  policyArgs: {},
  dedupes: false,
  openWorld: true,
  sends: true,
};

/** Where a connection's ask is queued and who may answer it. */
export interface DurableNetworkApproverOptions {
  readonly store: Store;
  readonly directory: ApproverDirectory;
  /** Who may answer when nobody else is named (as `approvals.default_approvers`). */
  readonly defaultApprovers?: readonly string[];
  /**
   * How long a request stays open when the ask does not say (`NetworkAskRequest.timeoutMs`, the
   * proxy's `ask_timeout`); default 60 s: the connection waits no longer, so a later decision
   * would let nothing through.
   */
  readonly expiresMs?: number;
  /** A channel that can answer now (the operator's terminal); answers pass the same checks. */
  readonly interactive?: Approver;
  /** How often a waiting connection looks for a decision made elsewhere (default 500 ms). */
  readonly pollMs?: number;
  /** Told when a request is opened, so a person can be pointed at it. */
  readonly onPending?: Parameters<typeof createDurableApprover>[0]["onPending"];
}

let sequence = 0;

/**
 * A network approver whose asks are approval requests in the store, like a tool call's: the
 * connection waits while any channel (terminal, `docket approvals`, the HTTP API, the console)
 * decides; the request is bound to the host and port (its canonical arguments' hash), to the call
 * that opened it and that call's session; the requesting agent may not answer it; the decision is
 * in the trail. "Approve for this session" lets later connections to the same host and port in
 * the same session through. An ask that does not name its call is refused: there is nothing to
 * bind the answer to.
 *
 * @example
 * ```ts
 * import type { Store } from "../store/store.js";
 * import { createApproverDirectory } from "./approver-directory.js";
 * declare const store: Store;
 * const directory = createApproverDirectory({ alice: { roles: ["lead"] } });
 * const networkApprover = createDurableNetworkApprover({ store, directory, defaultApprovers: ["alice"] });
 * // builtinTools({ workspace, run: { sandbox, networkApprover } })
 * ```
 */
export function createDurableNetworkApprover({
  store,
  directory,
  defaultApprovers = [],
  expiresMs = 60_000,
  interactive,
  pollMs,
  onPending,
}: DurableNetworkApproverOptions): NetworkApprover {
  // One per expiry: a request lives as long as the proxy holds its connection, and a sandboxed
  // MCP server's own `ask_timeout` may differ from the runtime's.
  const durables = new Map<number, ReturnType<typeof createDurableApprover>>();
  const durableFor = (lifetimeMs: number) => {
    let durable = durables.get(lifetimeMs);
    if (durable === undefined) {
      durable = createDurableApprover({
        store,
        directory,
        mode: "wait",
        expiresMs: lifetimeMs,
        defaultApprovers,
        ...(interactive ? { interactive } : {}),
        ...(pollMs !== undefined ? { pollMs } : {}),
        ...(onPending ? { onPending } : {}),
      });
      durables.set(lifetimeMs, durable);
    }
    return durable;
  };
  return async (asked, signal): Promise<NetworkAskAnswer> => {
    if (asked.call === undefined) {
      return {
        approved: false,
        reason: `a durable approval for ${asked.host}:${asked.port} needs the call that opened it, and this launch did not name one`,
      };
    }
    const request = networkApprovalRequest(asked, asked.call, signal);
    // The chain asks first, as for a call (`approval_requested` with the arguments' hash): an
    // audit verify checks every approval row against it.
    const base = {
      callId: request.callId,
      tool: NETWORK_APPROVAL_TOOL,
      sessionId: request.sessionId,
    };
    try {
      await store.emit({
        ...base,
        at: Date.now(),
        type: "approval_requested",
        principal: request.principal,
        argumentsHash: request.argumentsHash,
        approvers: undefined,
      });
    } catch {
      return { approved: false, reason: "the approval request could not be recorded" };
    }
    const answer = await durableFor(asked.timeoutMs ?? expiresMs)(request);
    if (answer.decision !== "pending" && answer.recorded !== true) {
      // Answered without a decision in the chain yet (a session grant, the terminal): written
      // here, as the checkpoint writes a call's.
      await store
        .emit(
          answer.decision === "approve"
            ? {
                ...base,
                at: Date.now(),
                type: "approved",
                by: answer.by,
                scope: answer.scope ?? "once",
                reason: answer.reason,
              }
            : {
                ...base,
                at: Date.now(),
                type: "approval_denied",
                by: answer.by,
                reason: answer.reason ?? "denied",
              },
        )
        .catch(() => undefined);
    }
    // A session grant answers without queueing a request: then the record names none.
    const id = approvalIdFor(request.sessionId, request.callId);
    const stored = answer.decision !== "pending" ? await store.getApproval(id) : undefined;
    const named = stored !== undefined ? { approvalId: id } : {};
    switch (answer.decision) {
      case "approve":
        return { approved: true, ...named, by: answer.by };
      case "deny":
        return {
          approved: false,
          ...named,
          by: answer.by,
          ...(answer.reason ? { reason: answer.reason } : {}),
          // Nobody decided before the queue expired it: the same end as the proxy's own timeout.
          ...(stored?.status === "expired" ? { expired: true } : {}),
        };
      case "pending":
        // Only a suspending approver answers pending; a connection cannot suspend.
        return { approved: false, approvalId: answer.approvalId, reason: "still pending" };
    }
  };
}

// One request per connection: its own call id under the call's (`CALL/network/N`), so a person
// approves exactly this connection, and the id names the call it belongs to.
function networkApprovalRequest(
  asked: NetworkAskRequest,
  call: NonNullable<NetworkAskRequest["call"]>,
  signal: AbortSignal,
): ApprovalRequest {
  const target = { host: asked.host.toLowerCase(), port: asked.port };
  const canonicalArguments = canonicalJson(target);
  const hash = (text: string) => createHash("sha256").update(text).digest("hex");
  sequence += 1;
  return {
    callId: `${call.callId}/network/${Date.now().toString(36)}-${sequence}`,
    toolName: NETWORK_APPROVAL_TOOL,
    tool: NETWORK_ENTRY,
    args: target,
    canonicalArguments,
    argumentsHash: hash(canonicalArguments),
    principal: call.principal,
    sessionId: call.sessionId,
    verdict: {
      decision: "ask",
      rule: asked.rule,
      reason: `a sandboxed command of call ${call.callId} connects to ${target.host}:${target.port}`,
    },
    grant:
      call.sessionId === undefined
        ? { status: "not_offered", reason: "the call is in no session" }
        : {
            status: "offered",
            key: hash(`${NETWORK_APPROVAL_TOOL}\0${canonicalArguments}`),
            covers: `connections to ${target.host}:${target.port} from sandboxed commands for the rest of this session`,
          },
    signal,
  };
}

/**
 * A network approver that answers at once (the terminal's) as the `interactive` channel of a
 * durable one: the person's answer is recorded on the queued request, by `name`, and a decision
 * made elsewhere meanwhile closes the question.
 *
 * @example
 * ```ts
 * import type { Store } from "../store/store.js";
 * import { createApproverDirectory } from "./approver-directory.js";
 * import { createTerminalNetworkApprover } from "./terminal-network-approver.js";
 * declare const store: Store;
 * const directory = createApproverDirectory({ alice: { roles: ["lead"] } });
 * createDurableNetworkApprover({
 *   store,
 *   directory,
 *   interactive: asInteractive(createTerminalNetworkApprover(), "alice"),
 * });
 * ```
 */
export function asInteractive(approve: NetworkApprover, name: string): Approver {
  return async (request) => {
    const said = await approve(
      {
        host: String(request.args.host),
        port: Number(request.args.port),
        rule: request.verdict.rule ?? "",
      },
      request.signal,
    );
    const yes = typeof said === "boolean" ? said : said.approved;
    return yes
      ? { decision: "approve", by: name }
      : { decision: "deny", by: name, reason: "denied at the terminal" };
  };
}
