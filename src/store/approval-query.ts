import { DocketError } from "../errors/docket-error.js";
import type { ApprovalStatus } from "./approval-record.js";
import {
  APPROVALS_SEARCH_COLUMNS,
  APPROVALS_SEARCH_DOCUMENT,
} from "./migrations/014-approvals-search.js";

/**
 * The narrower filters of an approvals listing, shared by `listApprovals` and `pageApprovals`:
 * what the console's decided view and `docket approvals list` filter by. Every field narrows;
 * none given lists everything.
 *
 * @example
 * ```ts
 * import type { Store } from "./store.js";
 * declare const store: Store;
 * await store.pageApprovals({ statuses: ["approved", "denied"], tool: "issue_refund", search: "SU-88" });
 * ```
 */
export interface ApprovalQuery {
  /** Any of these statuses (with `status` too, both must hold). */
  readonly statuses?: readonly ApprovalStatus[];
  /** The tool's exact name. */
  readonly tool?: string;
  /** Who asked: the requesting principal, exactly. */
  readonly requestedBy?: string;
  /** Who decided, exactly. */
  readonly decidedBy?: string;
  /** Requested at or after this time (ms since the epoch). */
  readonly createdFrom?: number;
  /** Requested before this time (ms since the epoch). */
  readonly createdBefore?: number;
  /**
   * Text found, ignoring ASCII case, in the id, call id, session id, tool, canonical arguments,
   * rule, reason, requester, approver or the decision's reason. Taken literally (`%` and `_`
   * are not wildcards).
   */
  readonly search?: string;
  /**
   * `pageApprovals` only: count no further than this many matches, so a broad filter over a
   * large store costs a page, not a scan. `total` is then at most `countUpTo + 1`, and a total
   * above `countUpTo` means "more than that".
   */
  readonly countUpTo?: number;
}

/**
 * Which SQL the search is written for: the engines differ on case in LIKE, and a SQLite store
 * migrated to version 14 has the FTS5 index (`sqlite-fts5`) where an older one opened read-only
 * has not.
 */
export type SearchEngine = "sqlite" | "sqlite-fts5" | "postgres";

const SEARCHED = APPROVALS_SEARCH_COLUMNS;
const DOCUMENT = APPROVALS_SEARCH_DOCUMENT;

/** Trigram indexes hold three-character pieces: a shorter text has none to look up. */
const INDEXED_FROM = 3;

// The full-text index narrows the rows to those that may hold the text (a superset: the index
// folds all of Unicode's case, LIKE only ASCII's), and the LIKEs below decide exactly, so an
// indexed search answers precisely what the scan would.
function searchIndexClause(
  search: string,
  engine: SearchEngine,
): { clause: string; value: string } | undefined {
  const phrase = ftsPhrase(search);
  if (phrase === undefined) return undefined;
  switch (engine) {
    case "sqlite":
      return undefined;
    case "sqlite-fts5":
      return {
        clause: "rowid IN (SELECT rowid FROM approvals_search WHERE approvals_search MATCH ?)",
        value: phrase,
      };
    case "postgres":
      return {
        clause: `(${DOCUMENT}) ILIKE ? ESCAPE '\\'`,
        value: likePattern(search),
      };
  }
}

/**
 * The search text as one FTS5 phrase (quotes doubled), or undefined when it is too short for a
 * trigram index to hold.
 *
 * @example
 * ```ts
 * ftsPhrase('SU-"88'); // '"SU-""88"'
 * ftsPhrase("ab"); // undefined
 * ```
 */
export function ftsPhrase(search: string): string | undefined {
  if ([...search].length < INDEXED_FROM) return undefined;
  return `"${search.replaceAll('"', '""')}"`;
}

function likePattern(search: string): string {
  return `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The SQL conditions (with `?` placeholders, read the same by SQLite and PostgreSQL) of an
 * `ApprovalQuery`, to be joined with AND.
 *
 * @example
 * ```ts
 * approvalQuerySql({ tool: "t" }, "postgres"); // { clauses: ["tool = ?"], params: ["t"] }
 * ```
 */
export function approvalQuerySql(
  query: ApprovalQuery,
  engine: SearchEngine = "sqlite",
): { clauses: string[]; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (query.statuses !== undefined) {
    // `status || ''`, not `status`: decided statuses are nearly every row, and an index on status
    // would make the planner read them all and sort them; without it, it walks the time index
    // newest first and stops when the page is full (SQLite has no statistics to know better).
    add(
      query.statuses.length === 0
        ? "1 = 0"
        : `status || '' IN (${query.statuses.map(() => "?").join(", ")})`,
      ...query.statuses,
    );
  }
  if (query.tool !== undefined) add("tool = ?", query.tool);
  if (query.requestedBy !== undefined) add("requested_by = ?", query.requestedBy);
  if (query.decidedBy !== undefined) add("decided_by = ?", query.decidedBy);
  if (query.createdFrom !== undefined) add("created_at >= ?", query.createdFrom);
  if (query.createdBefore !== undefined) add("created_at < ?", query.createdBefore);
  if (query.search !== undefined && query.search !== "") {
    // SQLite's LIKE ignores ASCII case (as its lower() does) and costs a third less than
    // lower(column) LIKE; PostgreSQL's does not ignore case, so it asks ILIKE. A NULL column
    // matches nothing, and the OR of the others decides.
    const like = engine === "postgres" ? "ILIKE" : "LIKE";
    const pattern = likePattern(query.search);
    const indexed = searchIndexClause(query.search, engine);
    if (indexed) add(indexed.clause, indexed.value);
    add(
      `(${SEARCHED.map((column) => `${column} ${like} ? ESCAPE '\\'`).join(" OR ")})`,
      ...SEARCHED.map(() => pattern),
    );
  }
  return { clauses, params };
}

/**
 * The count of a page's filter, up to `countUpTo + 1` when given (see `ApprovalQuery`).
 *
 * @example
 * ```ts
 * countSql("WHERE tool = ?", 1000); // "SELECT count(*) AS n FROM (SELECT 1 FROM approvals WHERE tool = ? LIMIT ?) AS matched"
 * ```
 */
export function countSql(where: string, countUpTo: number | undefined): string {
  return countUpTo === undefined
    ? `SELECT count(*) AS n FROM approvals ${where}`
    : `SELECT count(*) AS n FROM (SELECT 1 FROM approvals ${where} LIMIT ?) AS matched`;
}

/**
 * The parameters `countSql` adds after the filter's own.
 *
 * @example
 * ```ts
 * countParams(1000); // [1001]
 * ```
 */
export function countParams(countUpTo: number | undefined): number[] {
  if (countUpTo === undefined) return [];
  if (!Number.isSafeInteger(countUpTo) || countUpTo < 1) {
    throw new DocketError("invalid_filter", "countUpTo must be a positive integer.");
  }
  return [countUpTo + 1];
}
