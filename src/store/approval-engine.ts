import type { ApprovalPosition } from "./approval-cursor.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "./approval-record.js";
import type { ApprovalWatch } from "./approval-watch.js";
import type { Awaitable } from "./awaitable.js";

/**
 * An engine's approvals table: rows, the compare-and-set decision, expiry, and where the engine
 * can, wake-ups for waiters.
 *
 * @example
 * ```ts
 * declare const engine: ApprovalEngine;
 * const expired = await engine.expireApprovals(Date.now());
 * ```
 */
export interface ApprovalEngine {
  createApproval(input: NewApproval): Awaitable<Approval>;
  getApproval(id: string): Awaitable<Approval | undefined>;
  listApprovals(filter: ApprovalFilter): Awaitable<Approval[]>;
  /** Newest first, after `after`: `limit` + 1 rows at most (one more says more exist), and the total. */
  pageApprovals(
    filter: ApprovalFilter,
    after: ApprovalPosition | undefined,
    limit: number,
  ): Awaitable<{ rows: Approval[]; total: number }>;
  decideApproval(id: string, decision: ApprovalDecision): Awaitable<DecideResult>;
  expireApprovals(now: number): Awaitable<Approval[]>;
  /** Where decisions can wake waiters (PostgreSQL LISTEN/NOTIFY); without it, waiters poll. */
  watchApproval?(id: string): Promise<ApprovalWatch>;
}
