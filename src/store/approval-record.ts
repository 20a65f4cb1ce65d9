import type { ApprovalQuery } from "./approval-query.js";

/** Where an approval request stands. */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";

/**
 * A durable approval request: the exact call (bound to the hash of its canonical arguments),
 * who may answer it, and the answer once given.
 *
 * @example
 * ```ts
 * import { canonicalJson, hashCanonical } from "../shared/canonical-json.js";
 * declare const store: import("./store.js").Store;
 * const args = { order_id: "SU-1", amount: 300 };
 * const canonicalArgs = canonicalJson(args);
 * const argsHash = hashCanonical(args);
 * const approval = await store.createApproval({ callId: "call_1", tool: "refund", canonicalArgs, argsHash, requestedBy: "agent" });
 * approval.status; // "pending"
 * ```
 */
export interface Approval {
  readonly id: string;
  readonly sessionId: string | undefined;
  readonly callId: string;
  readonly tool: string;
  readonly canonicalArgs: string;
  readonly argsHash: string;
  readonly rule: string | undefined;
  readonly reason: string | undefined;
  readonly requestedBy: string;
  /** Principals or `role:NAME` that may answer; undefined means any approver. */
  readonly approvers: readonly string[] | undefined;
  readonly createdAt: number;
  readonly expiresAt: number | undefined;
  readonly status: ApprovalStatus;
  readonly decidedBy: string | undefined;
  readonly decidedAt: number | undefined;
  readonly decisionReason: string | undefined;
  /** True when the approver's identity was asserted locally (a terminal), not authenticated. */
  readonly locallyAsserted: boolean;
  readonly scope: "once" | "session";
  /**
   * The key of the session grant this request offers (see `GrantScope`); undefined when it offers
   * none. A `session` approval answers later requests of the same session with the same key.
   */
  readonly grantKey: string | undefined;
  /** In words: what "approve for this session" covers, or why it is not offered. */
  readonly grantText: string | undefined;
}

/** What `createApproval` needs. `id` defaults to `apr_<uuid>`, `createdAt` to now. */
export interface NewApproval {
  readonly id?: string;
  readonly sessionId?: string;
  readonly callId: string;
  readonly tool: string;
  readonly canonicalArgs: string;
  readonly argsHash: string;
  readonly rule?: string;
  readonly reason?: string;
  readonly requestedBy: string;
  readonly approvers?: readonly string[];
  readonly createdAt?: number;
  readonly expiresAt?: number;
  readonly scope?: "once" | "session";
  readonly grantKey?: string;
  readonly grantText?: string;
}

/** A human's answer to a pending approval. */
export interface ApprovalDecision {
  readonly decision: "approved" | "denied";
  readonly by: string;
  readonly reason?: string;
  /** Overrides the requested scope (an approver may narrow `session` to `once`). */
  readonly scope?: "once" | "session";
  readonly locallyAsserted?: boolean;
  /** Default now. */
  readonly at?: number;
}

/**
 * The result of `decideApproval`, a compare-and-set from `pending`: the first decision wins;
 * a later one gets `conflict` with the approval as it stands (an HTTP layer answers 409).
 */
export type DecideResult =
  | { readonly status: "decided"; readonly approval: Approval }
  | { readonly status: "conflict"; readonly approval: Approval }
  | { readonly status: "not_found" };

/** Filters and the page of `pageApprovals`: newest first, `limit` (default 100) at a time. */
export interface ApprovalPageFilter extends ApprovalQuery {
  readonly status?: ApprovalStatus;
  readonly sessionId?: string;
  readonly limit?: number;
  /** The `next` of the previous page. */
  readonly cursor?: string;
}

/** One page of approvals, newest first; `next` is there when older ones remain. */
export interface ApprovalPage {
  readonly approvals: Approval[];
  /** How many match the filter, on every page. */
  readonly total: number;
  readonly next?: string;
}

/** Filters for `listApprovals`; oldest first. */
export interface ApprovalFilter extends ApprovalQuery {
  readonly status?: ApprovalStatus;
  readonly sessionId?: string;
  readonly limit?: number;
}
