import type { Pool, PoolClient, QueryResult } from "pg";
import { parseJson } from "../../shared/parse-json.js";
import {
  type ChainHead,
  type ChainRow,
  ChainVerifier,
  GENESIS_HASH,
  linkHash,
} from "../audit-chain.js";
import type { AuditRecord, ChainVerification, EventFilter } from "../audit-record.js";
import type { CallRow } from "../call-state.js";
import { isLabelledResult } from "../labelled-result.js";
import { callKey, foldCallWrite, type PendingCallWrite } from "../pending-write.js";
import { eventFilterSql, listLimit } from "../store-input.js";
import { CALL_COLUMNS, type Row, toAuditRecord, toCallRow, toChainRow } from "../store-rows.js";
import { CALL_TYPES, callColumns } from "./postgres-calls.js";
import { inTransactionClient, numbered, transaction } from "./postgres-transaction.js";

const PAGE = 5000;

const EVENT_COLUMNS = "session_id, seq, call_id, type, tool, at, event, prev_hash, hash";

const EVENT_TYPES = ["text", "bigint", "text", "text", "text", "bigint", "text", "text", "text"];

const CALL_UPDATES = CALL_COLUMNS.slice(2)
  .map((column) => `${column} = excluded.${column}`)
  .join(", ");

/** A typed array literal: `ARRAY['a', NULL]::text[]`. */
function array(client: PoolClient, values: readonly unknown[], type: string): string {
  return `ARRAY[${values.map((value) => literal(client, value)).join(", ")}]::${type}[]`;
}

function literal(client: PoolClient, value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new Error(`cannot store ${value}`);
    return String(value);
  }
  return client.escapeLiteral(String(value));
}

/** A listed row, its columns in `EVENT_COLUMNS` order, as a record. */
function recordOf([session_id, seq, call_id, type, tool, at, event, prev_hash, hash]: unknown[]) {
  return toAuditRecord({ session_id, seq, call_id, type, tool, at, event, prev_hash, hash });
}

/**
 * The audit trail of a PostgreSQL store. An append is one transaction that first takes the
 * advisory lock of every session it touches (in a fixed order), then reads their chain heads, so
 * that processes on many machines appending to one session serialise instead of forking its
 * chain. Two round trips whatever the batch size, each a multi-statement simple query:
 * BEGIN, the locks and the read (heads and calls rows); then the write (events, heads and calls
 * rows, one statement) and COMMIT. Under READ COMMITTED every statement takes a new snapshot,
 * so the read sees whatever the previous lock holder committed.
 *
 * Values go in as SQL literals: strings through pg's escapeLiteral, numbers checked finite.
 *
 * @example
 * ```ts
 * import { prepareEvent } from "../pending-event.js";
 * declare const pool: import("pg").Pool;
 * declare const event: import("../store-event.js").StoreEvent;
 * const owner = "host/1/uuid";
 * const log = new PostgresAuditLog(pool, owner);
 * await log.append([prepareEvent(event, "")]);
 * ```
 */
export class PostgresAuditLog {
  /**
   * What this owner's `store_commits` row holds after its last keyed commit, or after the
   * check of one in doubt: the next keyed commit changes it only from this value.
   */
  private lastKey = 0;

  constructor(
    private readonly pool: Pool,
    private readonly owner: string,
  ) {}

  /**
   * Append queued items, in order, in one transaction: events to their chains, calls rows, and
   * with a `key`, this owner's last commit key (for `committed` after a commit in doubt).
   */
  async append(items: readonly PendingCallWrite[], key?: number): Promise<void> {
    if (items.length === 0) return;
    await inTransactionClient(this.pool, (client) =>
      this.write(client, items, { key, begin: true, commit: true }),
    );
  }

  /**
   * Append `items` inside a transaction the caller began on `client` and will commit (with what
   * else it wrote there): the same locks, read and write as `append`, without a commit key.
   */
  async appendIn(client: PoolClient, items: readonly PendingCallWrite[]): Promise<void> {
    if (items.length === 0) return;
    await this.write(client, items, { begin: false, commit: false });
  }

  /** The locks and the read in one round trip, then the write (and COMMIT) in another. */
  private async write(
    client: PoolClient,
    items: readonly PendingCallWrite[],
    { key, begin, commit }: { key?: number; begin: boolean; commit: boolean },
  ): Promise<void> {
    const sql = (values: readonly unknown[], type: string) => array(client, values, type);
    const sessions = [...new Set(items.map((item) => item.sessionId))].sort();
    const keys = new Map<string, readonly [string, string]>();
    for (const { sessionId, callId } of items) {
      keys.set(`${sessionId}\u0000${callId}`, [sessionId, callId]);
    }
    const pairs = [...keys.values()];
    const results =
      (await client.query(`${begin ? "BEGIN;\n" : ""}SELECT pg_advisory_xact_lock(hashtext(s)) FROM unnest(${sql(sessions, "text")}) AS s;
SELECT 'head' AS kind, row_to_json(h)::text AS data FROM chain_heads h
  WHERE h.session_id = ANY(${sql(sessions, "text")})
UNION ALL
SELECT 'call', row_to_json(c)::text FROM calls c
  JOIN unnest(${sql(
    pairs.map((pair) => pair[0]),
    "text",
  )}, ${sql(
    pairs.map((pair) => pair[1]),
    "text",
  )})
    AS k(session_id, call_id) ON c.session_id = k.session_id AND c.call_id = k.call_id`)) as unknown as QueryResult[];
    const read = results.at(-1)?.rows as { kind: string; data: string }[];
    const planned = this.plan(items, read);
    // The key moves only from the value this owner last saw there: a commit sent before a
    // doubt was settled (slow, not lost) finds the row moved by the check (`committed`) and
    // fails on the division by zero, so it can never land after the answer was given.
    const mark =
      key === undefined
        ? ""
        : `WITH mark AS (UPDATE store_commits SET commit_key = ${literal(client, key)}, at = ${literal(client, Date.now())}
  WHERE owner = ${literal(client, this.owner)} AND commit_key = ${literal(client, this.lastKey)} RETURNING 1)
SELECT 1 / (SELECT count(*)::int FROM mark);\n`;
    const statements = [planned ? `${planned(sql)};\n${mark}` : "", commit ? "COMMIT" : ""].join(
      "",
    );
    if (statements === "") return;
    await client.query(statements);
    if (planned && key !== undefined && commit) this.lastKey = key;
  }

  /** Seal the events onto their chains and fold them into their calls rows; the write to run. */
  private plan(
    items: readonly PendingCallWrite[],
    read: readonly { kind: string; data: string }[],
  ): ((sql: (values: readonly unknown[], type: string) => string) => string) | undefined {
    const heads = new Map<string, ChainHead>();
    const rows = new Map<string, CallRow>();
    for (const { kind, data } of read) {
      const row = parseJson(data) as Row;
      if (kind === "head") {
        heads.set(String(row.session_id), { seq: Number(row.seq), hash: String(row.hash) });
      } else {
        const call = toCallRow(row);
        rows.set(`${call.sessionId}\u0000${call.callId}`, call);
      }
    }
    const changed = new Set<string>();
    const columns: unknown[][] = [[], [], [], [], [], [], [], [], []];
    for (const item of items) {
      const key = callKey(item);
      const before = rows.get(key);
      const next = foldCallWrite(before, item, this.owner);
      if (item.kind === "event") {
        const { event, sessionId, callId, tool, json } = item;
        // An interruption that comes too late (the call finished meanwhile) is not recorded.
        if (event.type === "interrupted" && next === before) continue;
        const head = heads.get(sessionId) ?? { seq: 0, hash: GENESIS_HASH };
        const seq = head.seq + 1;
        const hash = linkHash(seq, sessionId, head.hash, json);
        const values = [sessionId, seq, callId, event.type, tool, event.at, json, head.hash, hash];
        values.forEach((value, i) => {
          columns[i]?.push(value);
        });
        heads.set(sessionId, { seq, hash });
      }
      if (next && next !== before) {
        rows.set(key, next);
        changed.add(key);
      }
    }
    if ((columns[0]?.length ?? 0) === 0 && changed.size === 0) return undefined;
    const touched = [...heads.entries()];
    const calls = callColumns(
      [...changed].flatMap((key) => {
        const row = rows.get(key);
        return row ? [row] : [];
      }),
    );
    return (sql) => {
      const eventArrays = EVENT_TYPES.map((type, i) => sql(columns[i] ?? [], type)).join(", ");
      const headArrays = [
        sql(
          touched.map(([id]) => id),
          "text",
        ),
        sql(
          touched.map(([, head]) => head.seq),
          "bigint",
        ),
        sql(
          touched.map(([, head]) => head.hash),
          "text",
        ),
      ].join(", ");
      const callArrays = CALL_TYPES.map((type, i) => sql(calls[i] ?? [], type)).join(", ");
      // One statement writes the events, the chain heads and the calls rows (data-modifying CTEs).
      return `WITH events AS (
  INSERT INTO audit_events (session_id, seq, call_id, type, tool, at, event, prev_hash, hash)
  SELECT * FROM unnest(${eventArrays})
), heads AS (
  INSERT INTO chain_heads (session_id, seq, hash) SELECT * FROM unnest(${headArrays})
  ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash
)
INSERT INTO calls (${CALL_COLUMNS.join(", ")}) SELECT * FROM unnest(${callArrays})
ON CONFLICT (session_id, call_id) DO UPDATE SET ${CALL_UPDATES}`;
    };
  }

  /**
   * Whether this owner's commit of `key` happened, asked after it failed. The row is locked
   * (waiting for a transaction that still holds it) and, when the commit did not happen, moved
   * to `-key`: a commit of `key` still on its way (slow, not lost) then fails, since it moves the
   * row only from the value it was sent with. The check moves it only from what it may hold
   * now (`key`, `-key` from an earlier check of it, or the value before the commit): a check
   * that arrives late, after later commits, changes nothing and fails. So the answer is final,
   * and asking again gives it again.
   */
  async committed(key: number): Promise<boolean> {
    const result = await this.pool.query(
      `UPDATE store_commits s
  SET commit_key = CASE WHEN o.old = $2::bigint THEN $2::bigint ELSE -$2::bigint END
  FROM (SELECT commit_key AS old FROM store_commits WHERE owner = $1 FOR UPDATE) o
  WHERE s.owner = $1 AND o.old IN ($2::bigint, -$2::bigint, $3::bigint)
  RETURNING o.old`,
      [this.owner, key, this.lastKey],
    );
    const old = result.rows[0]?.old;
    if (old === undefined) {
      // Never in docket's own order of commits and checks: the doubt stays, and writes fail.
      throw new Error(`this store's commit row holds none of ${key}, ${-key} or ${this.lastKey}`);
    }
    const done = Number(old) === key;
    this.lastKey = done ? key : -key;
    return done;
  }

  /** Make this owner's row (at open) so that every commit updates, and so locks, it. */
  async register(): Promise<void> {
    await this.pool.query(
      "INSERT INTO store_commits (owner, commit_key, at) VALUES ($1, 0, $2) ON CONFLICT (owner) DO UPDATE SET commit_key = 0",
      [this.owner, Date.now()],
    );
    this.lastKey = 0;
  }

  /** Remove this owner's row (at close). */
  async unregister(): Promise<void> {
    await this.pool.query("DELETE FROM store_commits WHERE owner = $1", [this.owner]);
  }

  async list(filter: EventFilter): Promise<AuditRecord[]> {
    if (filter.labelled === true) return this.listLabelled(filter);
    const { where, params } = eventFilterSql(filter);
    // Array rows: pg builds them several times faster than objects, which shows at 1,000 rows.
    const result = await this.pool.query<unknown[]>({
      text: numbered(
        `SELECT ${EVENT_COLUMNS} FROM audit_events ${where} ORDER BY session_id, seq LIMIT ?`,
      ),
      values: [...params, listLimit(filter.limit)],
      rowMode: "array",
    });
    return result.rows.map(recordOf);
  }

  /**
   * The labelled results a filter asks for: the rows its texts select, each checked in
   * JavaScript, page after page until `limit` are found or the rows run out, so that a short page
   * always means the end (`storedLabelSources` stops at one). Not parsed as JSON in SQL:
   * PostgreSQL's json refuses the `\u0000` and lone-surrogate escapes canonical JSON keeps (an
   * output, a call id), and one such result would make every later read of its session fail.
   */
  private async listLabelled(filter: EventFilter): Promise<AuditRecord[]> {
    const limit = listLimit(filter.limit);
    const { where, params } = eventFilterSql(filter, { textPosition: "strpos" });
    const records: AuditRecord[] = [];
    let from: readonly [string, number] | undefined;
    for (;;) {
      // `where` always has the labelled clauses: the page's key is one more.
      const after = from === undefined ? "" : " AND (session_id, seq) > (?, ?)";
      const result = await this.pool.query<unknown[]>({
        text: numbered(
          `SELECT ${EVENT_COLUMNS} FROM audit_events ${where}${after} ORDER BY session_id, seq LIMIT ?`,
        ),
        values: [...params, ...(from ?? []), limit],
        rowMode: "array",
      });
      for (const row of result.rows) {
        const record = recordOf(row);
        if (!isLabelledResult(record.event)) continue;
        records.push(record);
        if (records.length >= limit) return records;
      }
      const last = result.rows[result.rows.length - 1];
      if (result.rows.length < limit || last === undefined) return records;
      from = [String(last[0]), Number(last[1])];
    }
  }

  /** Verify one chain, or all, a page at a time, in one repeatable-read snapshot. */
  verify(sessionId: string | undefined): Promise<ChainVerification> {
    return transaction(
      this.pool,
      async (client) => {
        const headRows = await client.query(
          "SELECT session_id, seq, hash FROM chain_heads WHERE ($1::text IS NULL OR session_id = $1)",
          [sessionId ?? null],
        );
        const heads = new Map<string, ChainHead>();
        for (const row of headRows.rows as Row[]) {
          heads.set(String(row.session_id), { seq: Number(row.seq), hash: String(row.hash) });
        }
        const verifier = new ChainVerifier((id) => heads.get(id));
        let after: [string, number] | undefined;
        for (;;) {
          const page = await client.query<unknown[]>({
            text: pageQuery(sessionId, after),
            values: pageParams(sessionId, after),
            rowMode: "array",
          });
          let stop = false;
          let last: ChainRow | undefined;
          for (const [
            session_id,
            seq,
            call_id,
            type,
            tool,
            at,
            event,
            prev_hash,
            hash,
          ] of page.rows) {
            last = toChainRow({ session_id, seq, call_id, type, tool, at, event, prev_hash, hash });
            if (verifier.row(last)) {
              stop = true;
              break;
            }
          }
          if (stop || !last || page.rows.length < PAGE) break;
          after = [last.sessionId, last.seq];
        }
        return verifier.finish(heads.keys());
      },
      { begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" },
    );
  }
}

function pageQuery(sessionId: string | undefined, after: [string, number] | undefined): string {
  const select = `SELECT ${EVENT_COLUMNS} FROM audit_events`;
  if (sessionId !== undefined) {
    return `${select} WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT ${PAGE}`;
  }
  return after
    ? `${select} WHERE (session_id, seq) > ($1, $2) ORDER BY session_id, seq LIMIT ${PAGE}`
    : `${select} ORDER BY session_id, seq LIMIT ${PAGE}`;
}

function pageParams(sessionId: string | undefined, after: [string, number] | undefined): unknown[] {
  if (sessionId !== undefined) return [sessionId, after?.[1] ?? 0];
  return after ? [after[0], after[1]] : [];
}
