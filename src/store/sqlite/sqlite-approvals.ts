import { DocketError } from "../../errors/docket-error.js";
import type { ApprovalPosition } from "../approval-cursor.js";
import { countParams, countSql, ftsPhrase, type SearchEngine } from "../approval-query.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "../approval-record.js";
import { approvalFilterSql, listLimit, newApproval } from "../store-input.js";
import { type Row, toApproval } from "../store-rows.js";
import type { Database, Statement } from "./sqlite-driver.js";
import { statementCache } from "./statement-cache.js";

/** Up to this many matches a search is read from the full-text index (see `searchFor`). */
const RARE = 2_000;

/**
 * The `approvals` table of a SQLite store. Deciding is one conditional UPDATE (`WHERE status =
 * 'pending'`): a compare-and-set, so of two concurrent decisions exactly one wins.
 *
 * @example
 * ```ts
 * import { canonicalJson, hashCanonical } from "../../shared/canonical-json.js";
 * declare const db: import("./sqlite-driver.js").Database;
 * const [callId, tool, args] = ["call_1", "refund", { amount: 300 }] as const;
 * const [canonicalArgs, argsHash] = [canonicalJson(args), hashCanonical(args)];
 * const approvals = new SqliteApprovals(db, () => Date.now());
 * const approval = approvals.create({ callId, tool, canonicalArgs, argsHash, requestedBy: "agent" });
 * approvals.decide(approval.id, { decision: "approved", by: "alice" }); // { status: "decided", ... }
 * ```
 */
export class SqliteApprovals {
  private readonly sql: (source: string) => Statement;
  /** With the search index of schema 14, or without (an older file opened read-only). */
  private readonly search: SearchEngine;

  constructor(
    db: Database,
    private readonly now: () => number,
  ) {
    this.sql = statementCache(db);
    const indexed = this.sql("SELECT 1 FROM sqlite_master WHERE name = 'approvals_search'").get();
    this.search = indexed === undefined ? "sqlite" : "sqlite-fts5";
  }

  /**
   * The index, or the walk along the time index, whichever reads fewer rows. SQLite cannot
   * tell how many rows a text matches, so it is asked, up to RARE: a rare text is read from the
   * index (its few rows, then sorted); a common one is not, because fetching and sorting every
   * row that holds it costs more than walking the newest rows until a page is full.
   */
  private searchFor(search: string | undefined): SearchEngine {
    const phrase = search === undefined ? undefined : ftsPhrase(search);
    if (this.search === "sqlite" || phrase === undefined) return "sqlite";
    const { n } = this.sql(
      "SELECT count(*) AS n FROM (SELECT 1 FROM approvals_search WHERE approvals_search MATCH ? LIMIT ?)",
    ).get(phrase, RARE + 1) as { n: number };
    return n <= RARE ? "sqlite-fts5" : "sqlite";
  }

  create(input: NewApproval): Approval {
    const approval = newApproval(input, this.now());
    try {
      this.sql(
        `INSERT INTO approvals (id, session_id, call_id, tool, canonical_args, args_hash, rule, reason,
             requested_by, approvers, created_at, expires_at, status, locally_asserted, scope,
             grant_key, grant_text)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`,
      ).run(
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
      );
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith("SQLITE_CONSTRAINT")) {
        throw new DocketError("duplicate_approval", `An approval with id ${approval.id} exists.`, {
          cause: error,
        });
      }
      throw error;
    }
    return approval;
  }

  get(id: string): Approval | undefined {
    const row = this.sql("SELECT * FROM approvals WHERE id = ?").get(id) as Row | undefined;
    return row ? toApproval(row) : undefined;
  }

  list(filter: ApprovalFilter): Approval[] {
    const { where, params } = approvalFilterSql(filter, this.searchFor(filter.search));
    const rows = this.sql(`SELECT * FROM approvals ${where} ORDER BY created_at, id LIMIT ?`).all(
      ...params,
      listLimit(filter.limit),
    ) as Row[];
    return rows.map(toApproval);
  }

  /** One page, newest first: `limit` + 1 rows (the extra says more exist) and the total. */
  page(
    filter: ApprovalFilter,
    after: ApprovalPosition | undefined,
    limit: number,
  ): {
    rows: Approval[];
    total: number;
  } {
    const { where, params } = approvalFilterSql(filter, this.searchFor(filter.search));
    const before = after ? "(created_at < ? OR (created_at = ? AND id < ?))" : "";
    const clause = before ? (where ? `${where} AND ${before}` : `WHERE ${before}`) : where;
    const rows = this.sql(
      `SELECT * FROM approvals ${clause} ORDER BY created_at DESC, id DESC LIMIT ?`,
    ).all(
      ...params,
      ...(after ? [after.createdAt, after.createdAt, after.id] : []),
      limit + 1,
    ) as Row[];
    // A first page that holds every match is its own count: a rare match costs one scan, not two.
    if (!after && rows.length <= limit) return { rows: rows.map(toApproval), total: rows.length };
    const total = this.sql(countSql(where, filter.countUpTo)).get(
      ...params,
      ...countParams(filter.countUpTo),
    ) as { n: number };
    return { rows: rows.map(toApproval), total: Number(total.n) };
  }

  decide(id: string, decision: ApprovalDecision): DecideResult {
    const at = decision.at ?? this.now();
    const row = this.sql(
      `UPDATE approvals SET status = ?, decided_by = ?, decided_at = ?, decision_reason = ?,
           scope = COALESCE(?, scope), locally_asserted = ?
         WHERE id = ? AND status = 'pending' AND (expires_at IS NULL OR expires_at > ?)
         RETURNING *`,
    ).get(
      decision.decision,
      decision.by,
      at,
      decision.reason ?? null,
      decision.scope ?? null,
      decision.locallyAsserted ? 1 : 0,
      id,
      at,
    ) as Row | undefined;
    if (row) return { status: "decided", approval: toApproval(row) };
    this.expire(at, id);
    const current = this.get(id);
    return current ? { status: "conflict", approval: current } : { status: "not_found" };
  }

  expire(now: number, id?: string): Approval[] {
    const rows = this.sql(
      `UPDATE approvals SET status = 'expired', decided_at = ?
         WHERE status = 'pending' AND expires_at IS NOT NULL AND expires_at <= ? AND (? IS NULL OR id = ?)
         RETURNING *`,
    ).all(now, now, id ?? null, id ?? null) as Row[];
    return rows.map(toApproval);
  }
}
