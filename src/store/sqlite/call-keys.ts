import type { Database, Statement } from "./sqlite-driver.js";

/**
 * The sessions that have calls, one index seek each (a skip scan of the primary key written out:
 * SQLite plans one only with statistics). For files of versions 7 to 9, whose `calls` are keyed
 * by the session's text id: a call id without its session is looked up as (session, call id)
 * in each of these.
 */
export const SESSIONS_WITH_CALLS = `WITH RECURSIVE s(id) AS (
  SELECT MIN(session_id) FROM calls
  UNION ALL SELECT (SELECT MIN(session_id) FROM calls WHERE session_id > s.id) FROM s WHERE s.id IS NOT NULL
) SELECT id FROM s WHERE id IS NOT NULL`;

/**
 * How a SQLite file keys its `calls` rows, as SQL fragments for the queries that name a session.
 * From version 10 the key is `(session_no, call_id)`, `session_no` being the session's number in
 * `session_keys` (ADR 0018, "Second step"); a file of versions 7 to 9, which a read-only open
 * reads as it stands, keys them by `(session_id, call_id)`. Every fragment keeps the query a
 * seek on the primary key in both layouts.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * const keys = callKeys(db);
 * db.prepare(`SELECT * FROM calls WHERE ${keys.session} AND call_id = ?`).get("ses_1", "call_1");
 * ```
 */
export interface CallKeys {
  /** The file keys calls by session number (version 10 and later). */
  readonly numbered: boolean;
  /** Matches the calls of one session; one parameter, the session's id. */
  readonly session: string;
  /** Matches the calls of any session, for a probe of the key by call id (no parameter). */
  readonly anySession: string;
  /** The sessions that have a call with the id given as the one parameter. */
  readonly sessionsOfCall: string;
  /** `session_id` and `n` (calls) of the sessions in the JSON array given as the one parameter. */
  readonly countBySession: string;
  /**
   * The number of a session, given it one when it has none yet. Call inside the write
   * transaction that uses it: a number given in a transaction that rolls back is given again.
   */
  numberOf(sessionId: string): number;
  /**
   * True when the session surely has no `calls` row: the file keys calls by number and the
   * session has none (a number is given with its first row and never taken back). False when it
   * may have rows, which is all an older layout can say.
   */
  withoutCalls(sessionId: string): boolean;
}

/**
 * Read the layout of the file's `calls` table (once, at open).
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * callKeys(db).numbered; // true for a file of version 10
 * ```
 */
export function callKeys(db: Database): CallKeys {
  const numbered =
    db.prepare("SELECT 1 FROM pragma_table_info('calls') WHERE name = 'session_no'").get() !==
    undefined;
  if (!numbered) {
    return {
      numbered,
      session: "session_id = ?",
      anySession: `session_id IN (${SESSIONS_WITH_CALLS})`,
      sessionsOfCall: `SELECT session_id FROM calls WHERE session_id IN (${SESSIONS_WITH_CALLS}) AND call_id = ?`,
      countBySession: `SELECT session_id, COUNT(*) AS n FROM calls
        WHERE session_id IN (SELECT value FROM json_each(?)) GROUP BY session_id`,
      numberOf: () => {
        throw new RangeError("this file keys its calls by session id, not by number");
      },
      withoutCalls: () => false,
    };
  }
  let find: Statement | undefined;
  let give: Statement | undefined;
  // The last number used: a session's number never changes once committed (no row of
  // session_keys is ever deleted), and one given by a transaction that was undone is dropped.
  let last: { sessionId: string; no: number; undone: number } | undefined;
  const lookUp = (sessionId: string): unknown => {
    find ??= db.prepare("SELECT no FROM session_keys WHERE id = ?").pluck();
    return find.get(sessionId);
  };
  const number = (sessionId: string): number => {
    const found = lookUp(sessionId);
    if (found !== undefined) return Number(found);
    give ??= db.prepare("INSERT INTO session_keys (id) VALUES (?)");
    return Number(give.run(sessionId).lastInsertRowid);
  };
  return {
    numbered,
    session: "session_no = (SELECT no FROM session_keys WHERE id = ?)",
    anySession: "session_no IN (SELECT no FROM session_keys)",
    sessionsOfCall:
      "SELECT session_id FROM calls WHERE session_no IN (SELECT no FROM session_keys) AND call_id = ?",
    countBySession: `SELECT k.id AS session_id, COUNT(*) AS n FROM session_keys k
        JOIN calls c ON c.session_no = k.no
        WHERE k.id IN (SELECT value FROM json_each(?)) GROUP BY k.no`,
    numberOf: (sessionId) => {
      if (last?.sessionId === sessionId && last.undone === db.undone) return last.no;
      const no = number(sessionId);
      last = { sessionId, no, undone: db.undone };
      return no;
    },
    withoutCalls: (sessionId) => lookUp(sessionId) === undefined,
  };
}
