import pg from "pg";
import { openNodeSqlite } from "../../../src/store/sqlite/node-sqlite-database.js";
import type { Store } from "../../../src/store/store.js";
import { parseStoreUrl } from "../../../src/store/store-url.js";

/**
 * Run SQL on a store's database directly, bypassing the store: how the tamper tests edit,
 * delete, insert and reorder events. Values go in as literals (`lit`), so one text serves both
 * engines.
 *
 * @example
 * ```ts
 * await rawSql(store, [`UPDATE calls SET tool = ${lit("x")}`]);
 * ```
 */
export async function rawSql(store: Store, statements: readonly string[]): Promise<unknown[][]> {
  const target = parseStoreUrl(store.location);
  if (target.engine === "sqlite") {
    const db = openNodeSqlite(target.path);
    try {
      return statements.map((sql) => {
        const statement = db.prepare(sql);
        if (/^\s*select/i.test(sql)) return statement.all();
        statement.run();
        return [];
      });
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({
    connectionString: target.connectionString,
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
  });
  await client.connect();
  try {
    const results: unknown[][] = [];
    for (const sql of statements) results.push((await client.query(sql)).rows);
    return results;
  } finally {
    await client.end();
  }
}

/**
 * Statements that lift the append-only guard on audit_events, as an attacker with database
 * access would.
 *
 * @example
 * ```ts
 * await rawSql(store, [...liftAppendOnly(store), "DELETE FROM audit_events WHERE seq = 2"]);
 * ```
 */
export function liftAppendOnly(store: Store): string[] {
  return store.engine === "sqlite"
    ? ["DROP TRIGGER audit_events_no_update", "DROP TRIGGER audit_events_no_delete"]
    : ["ALTER TABLE audit_events DISABLE TRIGGER USER"];
}

/**
 * A SQL string literal (standard quoting, valid in both engines).
 *
 * @example
 * ```ts
 * lit("it's"); // "'it''s'"
 * ```
 */
export function lit(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

/**
 * `audit_events` rows (selected with their `call_id` and `event` columns) as the events they
 * hold, in order, each with its own call id: a SQLite row may hold all the events of a turn's
 * read calls (a JSON array, ADRs 0077 and 0086).
 *
 * @example
 * ```ts
 * const [rows] = await rawSql(store, ["SELECT call_id, event FROM audit_events ORDER BY seq"]);
 * eventsOfRows(rows).map((e) => e.type); // ["requested", "decided", "started", "finished"]
 * ```
 */
export function eventsOfRows(rows: unknown[] | undefined): { call_id: string; type: string }[] {
  return (rows as { call_id: string; event: string }[]).flatMap((row) => {
    // A batch's calls are one row: their events as a JSON array (ADRs 0077, 0086, 0101), each
    // with its own call id; the row's call_id column is its last event's.
    const parsed = JSON.parse(row.event) as
      | { type: unknown; callId?: unknown }
      | { type: unknown; callId?: unknown }[];
    if (!Array.isArray(parsed)) return [{ call_id: row.call_id, type: String(parsed.type) }];
    return parsed.map((event) => ({ call_id: String(event.callId), type: String(event.type) }));
  });
}

/**
 * Every `audit_events` row of a SQLite store, raw, in chain order: a packed row is one row.
 *
 * @example
 * ```ts
 * declare const store: Store;
 * (await auditRows(store)).length; // rows, not events
 * ```
 */
export async function auditRows(store: Store): Promise<Record<string, unknown>[]> {
  const [found] = await rawSql(store, [
    "SELECT session_id, seq, call_id, type, event, prev_hash, hash FROM audit_events ORDER BY session_id, seq",
  ]);
  return found as Record<string, unknown>[];
}
