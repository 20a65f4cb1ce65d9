import type { Migration } from "./migration.js";

/**
 * Version 11: SQLite checks `calls.state` with a chain of `=` instead of `IN (…)` (ADR 0018,
 * "Fourth step"). The constraint is the same; its cost is not. For a CHECK, SQLite evaluates
 * an `IN` of five constants by building a temporary index of them for every row it writes:
 * about 0.45 µs of a calls row's 2.4 µs insert (every call writes one), against nothing
 * measurable for the chain. SQLite cannot alter a constraint in place, so `calls` is rebuilt as
 * version 10 built it (same columns, key and indexes), copied in rowid order to keep the
 * newest-first listing order. PostgreSQL is unchanged.
 *
 * An older docket would read the file correctly, but the version is the only way a store says
 * what built it, so it moves and older dockets refuse the store (`store_too_new`). A read-only
 * open reads version 7 to 10 files as they stand: readers never see a CHECK.
 *
 * @example
 * ```ts
 * callsStateCheck.version; // 11
 * ```
 */
export const callsStateCheck: Migration = {
  version: 11,
  name: "calls state check",
  sqlite: `
CREATE TABLE calls_v11 (
  session_no INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  writes INTEGER,
  principal TEXT,
  state TEXT NOT NULL CHECK (state = 'finished' OR state = 'claimed' OR state = 'started' OR state = 'requested' OR state = 'interrupted'),
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
INSERT INTO calls_v11 (session_no, session_id, call_id, tool, writes, principal, state, status,
    reason, decision, rule, dedupe_key, owner, outcome, result, seen_at, requested_at, claimed_at,
    started_at, finished_at, args_hash)
  SELECT session_no, session_id, call_id, tool, writes, principal, state, status, reason,
    decision, rule, dedupe_key, owner, outcome, result, seen_at, requested_at, claimed_at,
    started_at, finished_at, args_hash
  FROM calls ORDER BY rowid;
DROP TABLE calls;
ALTER TABLE calls_v11 RENAME TO calls;
CREATE INDEX calls_by_dedupe ON calls (session_no, tool, dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX calls_open ON calls (state) WHERE state IN ('claimed', 'started');
`,
  postgres: "SELECT 1;",
};
