import type { CallState } from "../src/store/call-record.js";
import type { Database, Statement } from "../src/store/sqlite/sqlite-driver.js";

/** What a call's entry in the log says of it: what a claim of its id must answer. */
export interface CallEntry {
  readonly callId: string;
  readonly state: CallState;
  readonly tool: string;
  readonly owner: string;
  readonly argsHash?: string;
  readonly status?: string;
  readonly result?: string;
}

/** A committed row of the log, as its tables need it: its link, the calls it moved, its metadata. */
export interface LogRow {
  readonly sessionId: string;
  readonly seq: number;
  readonly hash: string;
  readonly calls: readonly Pick<CallEntry, "callId" | "state">[];
  readonly metadata?: string;
}

/** The tables made from the log: a ledger row a call, the heads, the rows by session, and more. */
export const LOG_TABLES_SCHEMA = `
CREATE TABLE IF NOT EXISTS calls (session_id TEXT NOT NULL, call_id TEXT NOT NULL, state TEXT NOT NULL, seq INTEGER NOT NULL, UNIQUE (session_id, call_id));
CREATE TABLE IF NOT EXISTS heads (session_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS links (session_id TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS session_state (session_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, metadata TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS made (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
`;

/**
 * The tables `logTrailStore` makes from its log, in bulk: the calls ledger (a row a call naming its
 * state and the log row that holds its last entry), each session's chain head and latest metadata,
 * the rows by session, and how far the log is made. Every committed row is noted, this writer's
 * and those read from another writer's tail, and each statement only moves forward (a head, a
 * ledger row or the mark never goes back to an older row), so two writers making the same rows,
 * in either order, leave the same tables.
 *
 * @example
 * ```ts
 * declare const db: import("../src/store/sqlite/sqlite-driver.js").Database;
 * db.exec(LOG_TABLES_SCHEMA);
 * const tables = new LogTables(db);
 * tables.note({ sessionId: "s", seq: 1, hash: "h", calls: [] });
 * db.exec("BEGIN IMMEDIATE"); tables.make(); db.exec("COMMIT"); tables.clear();
 * ```
 */
export class LogTables {
  private rows: LogRow[] = [];
  private readonly statements: Record<"link" | "head" | "call" | "metadata" | "made", Statement>;

  constructor(db: Database) {
    this.statements = {
      link: db.prepare("INSERT OR IGNORE INTO links (session_id, seq) VALUES (?, ?)"),
      head: db.prepare(
        "INSERT INTO heads (session_id, seq, hash) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash WHERE excluded.seq > heads.seq",
      ),
      call: db.prepare(
        "INSERT INTO calls (session_id, call_id, state, seq) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, call_id) DO UPDATE SET state = excluded.state, seq = excluded.seq WHERE excluded.seq >= calls.seq",
      ),
      metadata: db.prepare(
        "INSERT INTO session_state (session_id, seq, metadata) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, metadata = excluded.metadata WHERE excluded.seq > session_state.seq",
      ),
      made: db.prepare(
        "INSERT INTO made (id, seq) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET seq = max(made.seq, excluded.seq)",
      ),
    };
  }

  /** A committed row whose tables are not made yet. */
  note(row: LogRow): void {
    this.rows.push(row);
  }

  /** Whether a committed row waits for its tables. */
  get pending(): boolean {
    return this.rows.length > 0;
  }

  /** Inside a write transaction: the tables of the noted rows and of `current`, this commit's. */
  make(current?: LogRow): void {
    const rows = current ? [...this.rows, current] : this.rows;
    if (rows.length === 0) return;
    const heads = new Map<string, LogRow>();
    const metadata = new Map<string, LogRow>();
    // A call's last entry is its state: one ledger row a call, however often it moved.
    const calls = new Map<
      string,
      { sessionId: string; callId: string; state: string; seq: number }
    >();
    let end = 0;
    for (const row of rows) {
      this.statements.link.run(row.sessionId, row.seq);
      heads.set(row.sessionId, row);
      if (row.metadata !== undefined) metadata.set(row.sessionId, row);
      for (const { callId, state } of row.calls) {
        calls.set(`${row.sessionId}\n${callId}`, {
          sessionId: row.sessionId,
          callId,
          state,
          seq: row.seq,
        });
      }
      end = Math.max(end, row.seq);
    }
    for (const [session, head] of heads) this.statements.head.run(session, head.seq, head.hash);
    for (const [session, row] of metadata) {
      this.statements.metadata.run(session, row.seq, row.metadata ?? "");
    }
    for (const call of calls.values()) {
      this.statements.call.run(call.sessionId, call.callId, call.state, call.seq);
    }
    this.statements.made.run(end);
  }

  /** After the transaction that made them committed. */
  clear(): void {
    this.rows = [];
  }
}
