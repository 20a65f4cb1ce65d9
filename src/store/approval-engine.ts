import type { ApprovalPosition } from "./approval-cursor.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "./approval-record.js";
import type { ApprovalWatch } from "./approval-watch.js";
import type { AuditAttestation } from "./audit-attestation.js";
import type { Awaitable } from "./awaitable.js";
import type { BatchAttestation } from "./patched-sessions.js";
import type { PendingEvent } from "./pending-event.js";
import type { PendingWrite } from "./pending-write.js";

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
  /**
   * Where the engine can (SQLite, PostgreSQL): the queued items, the decision and, when it
   * wins, the event that records it (`record`, given the decided row), in one transaction, so no
   * crash leaves a decision in the table that the chain does not hold.
   */
  decideApprovalRecorded?(
    items: readonly PendingWrite[],
    id: string,
    decision: ApprovalDecision,
    record: (approval: Approval) => PendingEvent,
    sign?: BatchAttestation,
  ): Awaitable<{ result: DecideResult; attestations: AuditAttestation[] }>;
  expireApprovals(now: number): Awaitable<Approval[]>;
  /** Where decisions can wake waiters (PostgreSQL LISTEN/NOTIFY); without it, waiters poll. */
  watchApproval?(id: string): Promise<ApprovalWatch>;
}
