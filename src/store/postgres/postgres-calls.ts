import type { Pool, PoolClient } from "pg";
import type { ToolResult } from "../../checkpoint/tool-result.js";
import { parseJson } from "../../shared/parse-json.js";
import type {
  CallFilter,
  CallOutcome,
  CallRecord,
  ClaimOptions,
  ClaimResult,
  DuplicateCall,
} from "../call-record.js";
import { type CallRow, isClaimable, newCallRow } from "../call-state.js";
import { callFilterSql, listLimit } from "../store-input.js";
import {
  CALL_COLUMNS,
  callRowValues,
  outcomeOfRow,
  type Row,
  seenClaim,
  toCallRecord,
  toCallRow,
} from "../store-rows.js";
import { lockSessions, numbered, transaction } from "./postgres-transaction.js";

/**
 * The PostgreSQL type of each of `CALL_COLUMNS`, for unnest of column arrays.
 *
 * @example
 * ```ts
 * CALL_TYPES.map((type, i) => `$${i + 1}::${type}[]`);
 * ```
 */
export const CALL_TYPES = [
  "text",
  "text",
  "text",
  "boolean",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "bigint",
  "bigint",
  "bigint",
  "bigint",
  "bigint",
  "text",
];

/**
 * The statement that inserts or replaces calls rows given as column arrays, its parameters
 * numbered from `first`.
 *
 * @example
 * ```ts
 * declare const client: import("pg").PoolClient; // inside a transaction
 * declare const rows: readonly import("../call-state.js").CallRow[];
 * await client.query(upsertCallsSql(1), callColumns(rows));
 * ```
 */
export function upsertCallsSql(first: number): string {
  return `INSERT INTO calls (${CALL_COLUMNS.join(", ")})
SELECT * FROM unnest(${CALL_TYPES.map((type, i) => `$${first + i}::${type}[]`).join(", ")})
ON CONFLICT (session_id, call_id) DO UPDATE SET ${CALL_COLUMNS.slice(2)
    .map((column) => `${column} = excluded.${column}`)
    .join(", ")}`;
}

/**
 * Calls rows as one array per column, in `CALL_COLUMNS` order.
 *
 * @example
 * ```ts
 * import { CALL_COLUMNS } from "../store-rows.js";
 * declare const row: import("../call-state.js").CallRow;
 * callColumns([row]).length === CALL_COLUMNS.length; // true
 * ```
 */
export function callColumns(rows: readonly CallRow[]): unknown[][] {
  const columns: unknown[][] = CALL_COLUMNS.map(() => []);
  for (const row of rows) {
    callRowValues(row).forEach((value, i) => {
      columns[i]?.push(value);
    });
  }
  return columns;
}

const UPSERT = upsertCallsSql(1);

/**
 * The `calls` table of a PostgreSQL store. Every read-modify-write of a row runs under its
 * session's advisory lock (the lock appends take), so a claim, a result and an event never
 * overwrite one another, from any number of processes.
 *
 * @example
 * ```ts
 * declare const pool: import("pg").Pool;
 * const owner = "host/1/uuid";
 * const calls = new PostgresCalls(pool, owner, () => Date.now());
 * await calls.claim("ses_1", "call_1", {}); // { status: "claimed" }
 * ```
 */
export class PostgresCalls {
  constructor(
    private readonly pool: Pool,
    private readonly owner: string,
    private readonly now: () => number,
  ) {}

  /** The rows of these (session, call) keys, by key `session\0call` (call inside the lock). */
  async loadMany(
    client: PoolClient,
    keys: readonly (readonly [string, string])[],
  ): Promise<Map<string, CallRow>> {
    const found = new Map<string, CallRow>();
    if (keys.length === 0) return found;
    const result = await client.query(
      `SELECT c.* FROM calls c JOIN unnest($1::text[], $2::text[]) AS k(session_id, call_id)
         ON c.session_id = k.session_id AND c.call_id = k.call_id`,
      [keys.map((key) => key[0]), keys.map((key) => key[1])],
    );
    for (const row of result.rows as Row[]) {
      const call = toCallRow(row);
      found.set(`${call.sessionId}\u0000${call.callId}`, call);
    }
    return found;
  }

  /** Insert or replace rows in one statement (call inside the lock). */
  async saveMany(client: PoolClient, rows: readonly CallRow[]): Promise<void> {
    if (rows.length === 0) return;
    await client.query(UPSERT, callColumns(rows));
  }

  claim(sessionId: string, callId: string, options: ClaimOptions): Promise<ClaimResult> {
    return this.locked(sessionId, callId, async (client, row): Promise<ClaimResult> => {
      if (row && !isClaimable(row, options)) return seenClaim(row);
      const at = this.now();
      const base = row ?? newCallRow(sessionId, callId, options.tool ?? "", at);
      await this.saveMany(client, [
        {
          ...base,
          tool: base.tool || (options.tool ?? ""),
          writes: options.writes ?? base.writes,
          dedupeKey: options.dedupeKey ?? base.dedupeKey,
          argsHash: options.argsHash ?? base.argsHash,
          state: "claimed",
          claimedAt: at,
          owner: this.owner,
        },
      ]);
      return { status: "claimed" };
    });
  }

  /** One row, or undefined, read outside any transaction. */
  async load(sessionId: string, callId: string): Promise<CallRow | undefined> {
    const result = await this.pool.query(
      "SELECT * FROM calls WHERE session_id = $1 AND call_id = $2",
      [sessionId, callId],
    );
    const row = result.rows[0] as Row | undefined;
    return row ? toCallRow(row) : undefined;
  }

  async outcome(sessionId: string, callId: string): Promise<CallOutcome | undefined> {
    const row = await this.load(sessionId, callId);
    return row ? outcomeOfRow(row) : undefined;
  }

  async findDuplicate(
    sessionId: string,
    tool: string,
    dedupeKey: string,
    sinceMs: number,
  ): Promise<DuplicateCall | undefined> {
    const result = await this.pool.query(
      `SELECT call_id, result, finished_at FROM calls
       WHERE session_id = $1 AND tool = $2 AND dedupe_key = $3 AND status = 'ok'
         AND result IS NOT NULL AND finished_at >= $4
       ORDER BY finished_at DESC LIMIT 1`,
      [sessionId, tool, dedupeKey, sinceMs],
    );
    const row = result.rows[0] as Row | undefined;
    if (!row) return undefined;
    return {
      callId: String(row.call_id),
      result: parseJson(String(row.result)) as ToolResult,
      finishedAt: Number(row.finished_at),
    };
  }

  async list(filter: CallFilter): Promise<CallRecord[]> {
    const { where, params } = callFilterSql(filter);
    const order = filter.fromCallId === undefined ? "seen_at DESC, call_id" : "call_id";
    const result = await this.pool.query(
      numbered(`SELECT * FROM calls ${where} ORDER BY ${order} LIMIT ?`),
      [...params, listLimit(filter.limit)],
    );
    return (result.rows as Row[]).map((row) => toCallRecord(toCallRow(row)));
  }

  /** Calls per session, in one query whatever the number of ids. */
  async count(sessionIds: readonly string[]): Promise<Map<string, number>> {
    const result = await this.pool.query(
      "SELECT session_id, COUNT(*) AS n FROM calls WHERE session_id = ANY($1::text[]) GROUP BY session_id",
      [sessionIds],
    );
    return new Map((result.rows as Row[]).map((row) => [String(row.session_id), Number(row.n)]));
  }

  /** Claimed or started calls, for recovery. */
  async open(sessionId: string | undefined): Promise<CallRecord[]> {
    const result = await this.pool.query(
      "SELECT * FROM calls WHERE state IN ('claimed', 'started') AND ($1::text IS NULL OR session_id = $1)",
      [sessionId ?? null],
    );
    return (result.rows as Row[]).map((row) => toCallRecord(toCallRow(row)));
  }

  /** Release a claim that never started, if it is still held by the same owner. */
  async release(call: CallRecord): Promise<void> {
    await this.pool.query(
      `UPDATE calls SET state = 'requested', claimed_at = NULL, owner = NULL
       WHERE session_id = $1 AND call_id = $2 AND state = 'claimed' AND owner IS NOT DISTINCT FROM $3`,
      [call.sessionId, call.callId, call.owner ?? null],
    );
  }

  private locked<T>(
    sessionId: string,
    callId: string,
    fn: (client: PoolClient, row: CallRow | undefined) => Promise<T>,
  ): Promise<T> {
    return transaction(this.pool, async (client) => {
      await lockSessions(client, [sessionId]);
      const rows = await this.loadMany(client, [[sessionId, callId]]);
      return fn(client, rows.get(`${sessionId}\u0000${callId}`));
    });
  }
}
