import type { GrantScope } from "../policy/grant-scope.js";
import type { PolicyVerdict } from "../policy/policy.js";
import type { Tool } from "../tool/tool.js";

/** What an approver is asked: the exact call, bound to the hash of its canonical arguments. */
export interface ApprovalRequest {
  readonly callId: string;
  /** The name of the tool the call is for, as the model asked for it: what a person approves. */
  readonly toolName: string;
  /** The tool itself (its description, `writes`, schema), for approvers that show more. */
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
  /** Canonical JSON of the arguments: what the approver is really approving. */
  readonly canonicalArguments: string;
  /** SHA-256 of `canonicalArguments`. */
  readonly argumentsHash: string;
  /** The principal that asked for the call (the agent). It may never approve its own call. */
  readonly principal: string;
  readonly sessionId: string | undefined;
  /** The policy answer that asked, with its rule and reason. */
  readonly verdict: PolicyVerdict;
  /**
   * What "approve for this session" would cover, or why it is not offered. Answering
   * `scope: "session"` when it is not offered refuses the call.
   */
  readonly grant: GrantScope;
  readonly signal: AbortSignal;
}

/** An approver's answer. `pending` suspends the call (durable approvals). */
export type ApprovalAnswer =
  | {
      readonly decision: "approve";
      readonly by: string;
      readonly reason?: string;
      /**
       * `session` also approves, for the rest of the session, the later calls `grant.covers`
       * describes (the checkpoint keeps the grant). Refused when `grant` is not offered.
       */
      readonly scope?: "once" | "session";
      /** The approver already wrote this decision to the audit trail; the checkpoint does not again. */
      readonly recorded?: boolean;
    }
  | {
      readonly decision: "deny";
      readonly by: string;
      readonly reason?: string;
      /** The approver already wrote this decision to the audit trail; the checkpoint does not again. */
      readonly recorded?: boolean;
    }
  | { readonly decision: "pending"; readonly approvalId: string; readonly message?: string };

/** A programmatic approver: a callback, sync or async. */
export type Approver = (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;
