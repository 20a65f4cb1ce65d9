import type { Migration } from "./migration.js";

/**
 * Version 10: SQLite keys `calls` by a small integer per session (ADR 0018, "Second step").
 *
 * `session_keys` gives every session that has calls a number (`no`, an INTEGER PRIMARY KEY, so
 * it never changes, VACUUM included); `calls` is rebuilt with `session_no` first and its primary
 * key on `(session_no, call_id)` instead of `(session_id, call_id)`. Each key entry shrinks from
 * about 55 to about 15 bytes, so a batch's ten calls dirty fewer pages of that index, and a
 * commit costs about the pages it dirties (every one is a whole 4 KB frame of the write-ahead
 * log). The row keeps `session_id` as text, so that raw SQL over `calls` reads as before. Rows
 * are copied in rowid order, which keeps the newest-first listing order. PostgreSQL is
 * unchanged: its cost is round trips, not log frames.
 *
 * An older docket would not fill `session_no`, so the version moves and it refuses the store
 * (`store_too_new`). A read-only open reads a version 7 to 9 file as it stands (`call-keys.ts`).
 *
 * @example
 * ```ts
 * sessionKeyedCalls.version; // 10
 * ```
 */
export const sessionKeyedCalls: Migration = {
  version: 10,
  name: "session keyed calls",
  sqlite: `
CREATE TABLE session_keys (
  no INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE
);
INSERT INTO session_keys (id) SELECT DISTINCT session_id FROM calls ORDER BY session_id;
CREATE TABLE calls_v10 (
  session_no INTEGER NOT NULL,
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
  finished_at INTEGER,
  args_hash TEXT,
  PRIMARY KEY (session_no, call_id)
);
INSERT INTO calls_v10 (session_no, session_id, call_id, tool, writes, principal, state, status,
    reason, decision, rule, dedupe_key, owner, outcome, result, seen_at, requested_at, claimed_at,
    started_at, finished_at, args_hash)
  SELECT k.no, c.session_id, c.call_id, c.tool, c.writes, c.principal, c.state, c.status,
    c.reason, c.decision, c.rule, c.dedupe_key, c.owner, c.outcome, c.result, c.seen_at,
    c.requested_at, c.claimed_at, c.started_at, c.finished_at, c.args_hash
  FROM calls c JOIN session_keys k ON k.id = c.session_id ORDER BY c.rowid;
DROP TABLE calls;
ALTER TABLE calls_v10 RENAME TO calls;
CREATE INDEX calls_by_dedupe ON calls (session_no, tool, dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX calls_open ON calls (state) WHERE state IN ('claimed', 'started');
`,
  postgres: "SELECT 1;",
};
