import type { Pool } from "pg";
import { DocketError } from "../../errors/docket-error.js";
import type { ApprovalPosition } from "../approval-cursor.js";
import { countParams, countSql } from "../approval-query.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "../approval-record.js";
import { approvalFilterSql, listLimit, newApproval } from "../store-input.js";
import { type Row, toApproval } from "../store-rows.js";
import { numbered, sqlState } from "./postgres-transaction.js";

/**
 * The `approvals` table of a PostgreSQL store. Deciding is one conditional UPDATE (`WHERE status =
 * 'pending'`): under concurrent decisions PostgreSQL re-checks the condition on the row the
 * winner committed, so exactly one decision succeeds.
 *
 * @example
 * ```ts
 * declare const pool: import("pg").Pool;
 * const id = "apr_1";
 * const approvals = new PostgresApprovals(pool, () => Date.now());
 * await approvals.decide(id, { decision: "denied", by: "bob" });
 * ```
 */
export class PostgresApprovals {
  constructor(
    private readonly pool: Pool,
    private readonly now: () => number,
  ) {}

  async create(input: NewApproval): Promise<Approval> {
    const approval = newApproval(input, this.now());
    try {
      await this.pool.query(
        `INSERT INTO approvals (id, session_id, call_id, tool, canonical_args, args_hash, rule, reason,
           requested_by, approvers, created_at, expires_at, status, locally_asserted, scope,
           grant_key, grant_text)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', false, $13, $14, $15)`,
        [
          approval.id,
          approval.sessionId ?? null,
          approval.callId,
          approval.tool,
          approval.canonicalArgs,
          approval.argsHash,
          approval.rule ?? null,
          approval.reason ?? null,
          approval.requestedBy,
          approval.approvers ? JSON.stringify(approval.approvers) : null,
          approval.createdAt,
          approval.expiresAt ?? null,
          approval.scope,
          approval.grantKey ?? null,
          approval.grantText ?? null,
        ],
      );
    } catch (error) {
      if (sqlState(error) === "23505") {
        throw new DocketError("duplicate_approval", `An approval with id ${approval.id} exists.`, {
          cause: error,
        });
      }
      throw error;
    }
    return approval;
  }

  async get(id: string): Promise<Approval | undefined> {
    const result = await this.pool.query("SELECT * FROM approvals WHERE id = $1", [id]);
    const row = result.rows[0] as Row | undefined;
    return row ? toApproval(row) : undefined;
  }

  async list(filter: ApprovalFilter): Promise<Approval[]> {
    const { where, params } = approvalFilterSql(filter, "postgres");
    const result = await this.pool.query(
      numbered(`SELECT * FROM approvals ${where} ORDER BY created_at, id LIMIT ?`),
      [...params, listLimit(filter.limit)],
    );
    return (result.rows as Row[]).map(toApproval);
  }

  /** One page, newest first: `limit` + 1 rows (the extra says more exist) and the total. */
  async page(
    filter: ApprovalFilter,
    after: ApprovalPosition | undefined,
    limit: number,
  ): Promise<{ rows: Approval[]; total: number }> {
    const { where, params } = approvalFilterSql(filter, "postgres");
    const before = after ? "(created_at < ? OR (created_at = ? AND id < ?))" : "";
    const clause = before ? (where ? `${where} AND ${before}` : `WHERE ${before}`) : where;
    const result = await this.pool.query(
      numbered(`SELECT * FROM approvals ${clause} ORDER BY created_at DESC, id DESC LIMIT ?`),
      [...params, ...(after ? [after.createdAt, after.createdAt, after.id] : []), limit + 1],
    );
    const rows = (result.rows as Row[]).map(toApproval);
    // A first page that holds every match is its own count: a rare match costs one scan, not two.
    if (!after && rows.length <= limit) return { rows, total: rows.length };
    const total = await this.pool.query(numbered(countSql(where, filter.countUpTo)), [
      ...params,
      ...countParams(filter.countUpTo),
    ]);
    return { rows, total: Number(total.rows[0]?.n ?? 0) };
  }

  async decide(id: string, decision: ApprovalDecision): Promise<DecideResult> {
    const at = decision.at ?? this.now();
    const approval = await this.decideIn(this.pool, id, { ...decision, at });
    return approval ? { status: "decided", approval } : this.undecided(id, at);
  }

  /**
   * The compare-and-set alone, on `db` (a client inside the caller's transaction, whose row lock
   * it holds until that commits): the decided row, or undefined when the request was not pending
   * (then `undecided` says why, after the transaction).
   */
  async decideIn(
    db: Pick<Pool, "query">,
    id: string,
    decision: ApprovalDecision,
  ): Promise<Approval | undefined> {
    const at = decision.at ?? this.now();
    const result = await db.query(
      `UPDATE approvals SET status = $1, decided_by = $2, decided_at = $3, decision_reason = $4,
         scope = COALESCE($5, scope), locally_asserted = $6
       WHERE id = $7 AND status = 'pending' AND (expires_at IS NULL OR expires_at > $3)
       RETURNING *`,
      [
        decision.decision,
        decision.by,
        at,
        decision.reason ?? null,
        decision.scope ?? null,
        decision.locallyAsserted ?? false,
        id,
      ],
    );
    const row = result.rows[0] as Row | undefined;
    return row ? toApproval(row) : undefined;
  }

  /** Why a decision at `at` did not win: expired now if it had run out, decided, or missing. */
  async undecided(id: string, at: number): Promise<DecideResult> {
    await this.expire(at, id);
    const current = await this.get(id);
    return current ? { status: "conflict", approval: current } : { status: "not_found" };
  }

  async expire(now: number, id?: string): Promise<Approval[]> {
    const result = await this.pool.query(
      `UPDATE approvals SET status = 'expired', decided_at = $1
       WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= $1
         AND ($2::text IS NULL OR id = $2)
       RETURNING *`,
      [now, id ?? null],
    );
    return (result.rows as Row[]).map(toApproval);
  }
}
