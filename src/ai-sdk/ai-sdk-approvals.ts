import type { ModelMessage } from "@ai-sdk/provider-utils";
import type { Approver } from "../approval/approval.js";
import type { DispatchContext } from "../checkpoint/checkpoint-options.js";
import type { Checkpoint } from "../checkpoint/create-checkpoint.js";
import type { ToolResult } from "../checkpoint/tool-result.js";

/** Options for `createAiSdkApprovals`. */
export interface AiSdkApprovalsOptions {
  /**
   * Who answers the AI SDK's approval requests, as the audit trail names them (the person
   * behind your UI). Never the agent's principal: the checkpoint refuses self-approval.
   */
  readonly by: string;
}

/** A call the checkpoint asked about, waiting for the AI SDK's approval response. */
export interface WaitingCall {
  readonly name: string;
  readonly input: unknown;
  readonly ctx: DispatchContext;
}

/**
 * docket's asks answered through the AI SDK's approval flow: give `approver` to
 * `createCheckpoint`, and the object itself to `docketTools(checkpoint, { approvals })`.
 */
export interface AiSdkApprovals {
  /** The approver for `createCheckpoint({ approvals })`. */
  readonly approver: Approver;
  /**
   * Read the tool approval responses in `messages` and record them in docket's trail: a denied
   * call is dispatched once more so the checkpoint records the denial (the AI SDK runs nothing
   * for it); an approved call runs when the AI SDK calls its `execute`. docket's tools do this
   * on every call; call it yourself after a reply that only denies.
   */
  settle(checkpoint: Checkpoint, messages: readonly ModelMessage[]): Promise<void>;
  /** @internal The checkpoint asked about this call: remember how to dispatch it again. */
  wait(callId: string, call: WaitingCall): void;
  /** @internal Whether an `awaiting_approval` result is this bridge's. */
  owns(result: ToolResult): boolean;
}

const PREFIX = "ai-sdk:";

/**
 * Map docket's `ask` onto the AI SDK's own approval flow (`needsApproval`, then tool approval
 * responses in the next call's messages). A call the policy asks about is reported to the AI SDK
 * as needing approval; the response is recorded in docket's audit trail with `by` as the
 * approver, and the call runs (or is refused) through the checkpoint as always.
 *
 * @example
 * ```ts
 * const approvals = createAiSdkApprovals({ by: "ada@support" });
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * import { docketTools } from "./docket-tools.js";
 * declare const orderTools: import("../tool/tool.js").Tool[];
 * declare const policy: import("../policy/policy.js").PolicyInput;
 * declare const store: import("../store/store.js").Store;
 * const checkpoint = createCheckpoint({ tools: orderTools, policy, store, approvals: approvals.approver });
 * const tools = docketTools(checkpoint, { sessionId: "s-1", approvals });
 * ```
 */
export function createAiSdkApprovals({ by }: AiSdkApprovalsOptions): AiSdkApprovals {
  // A decision answers the exact call that was asked about: same id, tool and arguments. A model
  // that reuses an id later (`call_0` every turn) never inherits an earlier approval.
  const asked = new Map<string, string>();
  const decisions = new Map<
    string,
    { approved: boolean; reason: string | undefined; call: string }
  >();
  const waiting = new Map<string, WaitingCall>();
  return {
    approver: (request) => {
      const call = `${request.tool.name}\0${request.argumentsHash}`;
      const decision = decisions.get(request.callId);
      decisions.delete(request.callId);
      if (!decision || decision.call !== call) {
        asked.set(request.callId, call);
        return { decision: "pending", approvalId: `${PREFIX}${request.callId}` };
      }
      const reason = decision.reason ? { reason: decision.reason } : {};
      return decision.approved
        ? { decision: "approve", by, ...reason }
        : { decision: "deny", by, ...reason };
    },
    wait: (callId, call) => void waiting.set(callId, call),
    owns: (result) => result.status === "awaiting_approval" && result.approvalId.startsWith(PREFIX),
    async settle(checkpoint, messages) {
      const callOf = new Map<string, string>();
      for (const message of messages) {
        if (message.role !== "assistant" || typeof message.content === "string") continue;
        for (const part of message.content)
          if (part.type === "tool-approval-request") callOf.set(part.approvalId, part.toolCallId);
      }
      for (const message of messages) {
        if (message.role !== "tool") continue;
        for (const part of message.content) {
          if (part.type !== "tool-approval-response") continue;
          const callId = callOf.get(part.approvalId);
          const call = callId === undefined ? undefined : waiting.get(callId);
          if (callId === undefined || !call) continue;
          waiting.delete(callId);
          const asking = asked.get(callId);
          asked.delete(callId);
          if (asking === undefined) continue;
          decisions.set(callId, { approved: part.approved, reason: part.reason, call: asking });
          if (part.approved) continue;
          // The AI SDK answers a denied call itself; dispatching it again puts the denial on record.
          await checkpoint.dispatch(
            { id: callId, name: call.name, arguments: JSON.stringify(call.input) },
            call.ctx,
          );
        }
      }
    },
  };
}
