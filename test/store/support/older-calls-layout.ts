import { openNodeSqlite } from "../../../src/store/sqlite/node-sqlite-database.js";

/**
 * Turn a SQLite store file back into what a docket of schema 7 to 9 left: `calls` keyed by
 * `(session_id, call_id)` with no `session_no`, no `session_keys`, the index on call_id alone for
 * versions before 9, no owed-deliveries bookkeeping (schema 12), and the version given. The rows (and their rowid order) are kept.
 *
 * @example
 * ```ts
 * toOlderCallsLayout(path, 9);
 * ```
 */
/**
 * SQL that takes a SQLite store back from schema 12 (owed digest deliveries, ADR 0049) to 11:
 * for tests that fake an older file.
 *
 * @example
 * ```ts
 * db.exec(BEFORE_OWED_DELIVERIES);
 * ```
 */
export const BEFORE_OWED_DELIVERIES = `
DROP TABLE audit_deliveries_owed;
DROP INDEX audit_checkpoints_owner;
ALTER TABLE audit_checkpoints DROP COLUMN owner;
`;

export function toOlderCallsLayout(path: string, version: number): void {
  const db = openNodeSqlite(path);
  try {
    db.transaction(() => {
      db.exec(`
CREATE TABLE calls_old (
  session_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  writes INTEGER,
  principal TEXT,
  state TEXT NOT NULL CHECK (state IN ('requested', 'claimed', 'started', 'finished', 'interrupted')),
  status TEXT,
  reason TEXT,
  decision TEXT,
  rule TEXT,
  dedupe_key TEXT,
  owner TEXT,
  outcome TEXT,
  result TEXT,
  seen_at INTEGER NOT NULL,
  requested_at INTEGER,
  claimed_at INTEGER,
  started_at INTEGER,
  finished_at INTEGER, args_hash TEXT,
  PRIMARY KEY (session_id, call_id)
);
INSERT INTO calls_old SELECT session_id, call_id, tool, writes, principal, state, status, reason,
  decision, rule, dedupe_key, owner, outcome, result, seen_at, requested_at, claimed_at,
  started_at, finished_at, args_hash FROM calls ORDER BY rowid;
DROP TABLE calls;
ALTER TABLE calls_old RENAME TO calls;
CREATE INDEX calls_by_dedupe ON calls (session_id, tool, dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX calls_open ON calls (state) WHERE state IN ('claimed', 'started');
DROP TABLE session_keys;
${BEFORE_OWED_DELIVERIES}
`);
      if (version < 9) db.exec("CREATE INDEX calls_by_call ON calls (call_id)");
      db.prepare("UPDATE schema_version SET version = ? WHERE id = 1").run(version);
    })();
  } finally {
    db.close();
  }
}
