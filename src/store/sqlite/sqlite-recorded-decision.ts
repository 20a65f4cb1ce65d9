import type { ApprovalEngine } from "../approval-engine.js";
import type { Approval, ApprovalDecision } from "../approval-record.js";
import type { AuditAttestation } from "../audit-attestation.js";
import type { BatchAttestation } from "../patched-sessions.js";
import type { PendingEvent } from "../pending-event.js";
import type { PendingWrite } from "../pending-write.js";
import type { SqliteApprovals } from "./sqlite-approvals.js";
import type { SqliteAttestations } from "./sqlite-attestations.js";
import type { Database } from "./sqlite-driver.js";

/** The tables a recorded decision writes, and the engine's queued-item writer. */
export interface SqliteDecisionTables {
  readonly db: Database;
  readonly approvals: SqliteApprovals;
  readonly attestations: SqliteAttestations;
  /** Writes queued audit items inside the caller's transaction. */
  readonly writeQueued: (items: readonly PendingWrite[]) => void;
  /** After every commit (the file is still the one opened, WAL bookkeeping). */
  readonly afterCommit: () => void;
}

/**
 * A decision and the event that records it in one `BEGIN IMMEDIATE` transaction, after what the
 * deciding process had queued: the compare-and-set on the row, then, only when it won, the
 * `approved` or `approval_denied` event in its session's chain. A crash between the two can no
 * longer leave a decision the chain does not hold, which `audit verify` would have to report.
 *
 * @example
 * ```ts
 * declare const tables: SqliteDecisionTables;
 * declare const event: import("../pending-event.js").PendingEvent;
 * const decide = sqliteRecordedDecision(tables);
 * decide([], "apr_1", { decision: "approved", by: "bob" }, () => event);
 * ```
 */
export function sqliteRecordedDecision({
  db,
  approvals,
  attestations,
  writeQueued,
  afterCommit,
}: SqliteDecisionTables): NonNullable<ApprovalEngine["decideApprovalRecorded"]> {
  const decide = db.transaction(
    (
      items: readonly PendingWrite[],
      id: string,
      decision: ApprovalDecision,
      record: (approval: Approval) => PendingEvent,
      sign: BatchAttestation | undefined,
    ) => {
      const result = approvals.decide(id, decision);
      writeQueued(result.status === "decided" ? [...items, record(result.approval)] : items);
      const signed: AuditAttestation[] = sign
        ? attestations.writeIn(sign.sessions, sign.signer, sign.at)
        : [];
      return { result, attestations: signed };
    },
  );
  return (items, id, decision, record, sign) => {
    const done = decide.immediate(items, id, decision, record, sign);
    afterCommit();
    return done;
  };
}
