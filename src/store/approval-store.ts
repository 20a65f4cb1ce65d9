import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  ApprovalPage,
  ApprovalPageFilter,
  DecideResult,
  NewApproval,
} from "./approval-record.js";
import type { ApprovalWatch } from "./approval-watch.js";
import type { StoreEvent } from "./store-event.js";

/**
 * Approvals: asks waiting for a human, decided once (the first decision wins), expired when
 * their time passes. Who may decide is the approvals layer's job, not the store's. Part of
 * `Store`; take this type where only approvals are needed.
 *
 * @example
 * ```ts
 * async function approve(approvals: ApprovalStore, id: string) {
 *   const result = await approvals.decideApproval(id, { decision: "approved", by: "ana" });
 *   return result.status; // "decided", "conflict" or "not_found"
 * }
 * ```
 */
export interface ApprovalStore {
  /** Throws DocketError("duplicate_approval") when the id exists. */
  createApproval(input: NewApproval): Promise<Approval>;
  getApproval(id: string): Promise<Approval | undefined>;
  listApprovals(filter?: ApprovalFilter): Promise<Approval[]>;
  /**
   * Approvals a page at a time, newest first, with the total and a cursor for the next page
   * (`next`, absent on the last page). A bad cursor or limit is `invalid_filter`.
   */
  pageApprovals(filter?: ApprovalPageFilter): Promise<ApprovalPage>;
  /**
   * Compare-and-set from `pending`: the first decision wins, a later one gets `conflict`. With
   * `record`, the event that records a winning decision (given the decided row) is in the chain
   * when this resolves: in the decision's own commit where the engine can (SQLite), else right
   * after it.
   */
  decideApproval(
    id: string,
    decision: ApprovalDecision,
    options?: { readonly record?: (approval: Approval) => StoreEvent },
  ): Promise<DecideResult>;
  /**
   * Interest in an approval's decision, to take before reading it: `next(ms)` resolves when it
   * was decided (PostgreSQL: LISTEN/NOTIFY, from any process on the database) or after `ms`
   * (SQLite only polls). Close it when done.
   */
  watchApproval(id: string): Promise<ApprovalWatch>;
  /** Expire every pending approval whose time has passed; returns them. */
  expireApprovals(now?: number): Promise<Approval[]>;
}
