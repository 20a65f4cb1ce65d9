import type { Pool } from "pg";
import { DocketError } from "../../errors/docket-error.js";
import type { ApprovalEngine } from "../approval-engine.js";
import type { Approval, ApprovalDecision, DecideResult } from "../approval-record.js";
import type { PostgresApprovals } from "./postgres-approvals.js";
import type { PostgresAuditLog } from "./postgres-audit-log.js";
import { transaction } from "./postgres-transaction.js";

/** The tables a recorded decision writes on PostgreSQL, and how a decision wakes waiters. */
export interface PostgresDecisionTables {
  readonly pool: Pool;
  readonly approvals: PostgresApprovals;
  readonly audit: PostgresAuditLog;
  /** After the commit, when the decision won: wake the runs waiting on `id`. */
  readonly notify: (id: string) => Promise<void>;
  readonly now: () => number;
}

/**
 * A decision and the event that records it in one PostgreSQL transaction: the compare-and-set on
 * the row (its lock held to the commit), then, only when it won, the `approved` or
 * `approval_denied` event appended to its session's chain under the session's lock, as any
 * append is. A fault between the two (a lost connection, a crash of the deciding process) rolls
 * both back, so no decision is left in the table that the chain does not hold, which `audit
 * verify` would have to report as a problem. The store flushes its queue before (PostgreSQL
 * queues no transcript), so `items` is always empty here.
 *
 * @example
 * ```ts
 * declare const tables: PostgresDecisionTables;
 * declare const event: import("../pending-event.js").PendingEvent;
 * const decide = postgresRecordedDecision(tables);
 * await decide([], "apr_1", { decision: "approved", by: "bob" }, () => event);
 * ```
 */
export function postgresRecordedDecision({
  pool,
  approvals,
  audit,
  notify,
  now,
}: PostgresDecisionTables): NonNullable<ApprovalEngine["decideApprovalRecorded"]> {
  return async (items, id, rawDecision, record, sign) => {
    // The store flushes before (PostgreSQL queues no transcript), so nothing queued rides here
    // and no session is patched that would have to be signed in this commit. Anything else is a
    // caller's mistake: refused, not half done (signing here would lock sessions out of order).
    if (items.length > 0 || sign) {
      throw new DocketError(
        "invalid_queue",
        "A decision on PostgreSQL commits alone: flush queued items first, and sign at the cadence.",
      );
    }
    const decision = { ...rawDecision, at: rawDecision.at ?? now() };
    let decided: Approval | undefined;
    try {
      await transaction(pool, async (client) => {
        decided = await approvals.decideIn(client, id, decision);
        if (decided) await audit.appendIn(client, [record(decided)]);
      });
    } catch (error) {
      // A connection lost at COMMIT leaves the commit in doubt: the row says whether this
      // decision landed (and its event with it, one transaction). Anything else is the failure.
      if (!decided) throw error;
      const landed = await approvals.get(id).catch(() => undefined);
      if (!isThisDecision(landed, decision)) throw error;
      decided = landed;
    }
    let result: DecideResult;
    if (decided) {
      result = { status: "decided", approval: decided };
      await notify(id);
    } else {
      result = await approvals.undecided(id, decision.at);
    }
    return { result, attestations: [] };
  };
}

/** Whether the stored row holds `decision` as made here: its verdict, its approver, its time. */
function isThisDecision(
  row: Approval | undefined,
  decision: ApprovalDecision & { readonly at: number },
): row is Approval {
  return (
    row !== undefined &&
    row.status === decision.decision &&
    row.decidedBy === decision.by &&
    row.decidedAt === decision.at
  );
}
