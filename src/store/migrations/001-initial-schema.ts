import type { Migration } from "./migration.js";

/**
 * Version 1: sessions, transcript, audit events (hash-chained, append-only), chain heads, calls,
 * approvals. Times are integer milliseconds since the epoch; JSON is kept as text so that the
 * hashed bytes come back exactly (PostgreSQL's jsonb would renormalise them and refuses \u0000).
 *
 * Indexes are few on purpose: each one is written by every append. SQLite keeps audit events in
 * a rowid table (appends land at its end) with a unique (session_id, seq) index for listing and
 * verifying; the events of one call id are found through `calls` (indexed by call_id), and
 * calls are listed newest first by rowid. PostgreSQL, less sensitive to this, also indexes
 * calls by time.
 *
 * @example
 * ```ts
 * initialSchema.version; // 1
 * ```
 */
export const initialSchema: Migration = {
  version: 1,
  name: "initial schema",
  sqlite: `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  principal TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'suspended', 'completed', 'cancelled', 'failed')),
  config_hash TEXT NOT NULL,
  title TEXT,
  metadata TEXT
);
CREATE INDEX sessions_by_created ON sessions (created_at);

CREATE TABLE messages (
  session_id TEXT NOT NULL REFERENCES sessions (id),
  seq INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  content TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  batch INTEGER,
  PRIMARY KEY (session_id, seq)
);

CREATE TABLE audit_events (
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  call_id TEXT NOT NULL,
  type TEXT NOT NULL,
  tool TEXT NOT NULL,
  at INTEGER NOT NULL,
  event TEXT NOT NULL,
  prev_hash TEXT NOT NULL,
  hash TEXT NOT NULL,
  UNIQUE (session_id, seq)
);
CREATE TRIGGER audit_events_no_update BEFORE UPDATE ON audit_events
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;
CREATE TRIGGER audit_events_no_delete BEFORE DELETE ON audit_events
BEGIN SELECT RAISE(ABORT, 'audit events are append-only'); END;

CREATE TABLE chain_heads (
  session_id TEXT PRIMARY KEY,
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL
);

CREATE TABLE calls (
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
  PRIMARY KEY (session_id, call_id)
);
CREATE INDEX calls_by_call ON calls (call_id);
CREATE INDEX calls_by_dedupe ON calls (session_id, tool, dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX calls_open ON calls (state) WHERE state IN ('claimed', 'started');

CREATE TABLE approvals (
  id TEXT PRIMARY KEY,
  session_id TEXT,
  call_id TEXT NOT NULL,
  tool TEXT NOT NULL,
  canonical_args TEXT NOT NULL,
  args_hash TEXT NOT NULL,
  rule TEXT,
  reason TEXT,
  requested_by TEXT NOT NULL,
  approvers TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  status TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
  decided_by TEXT,
  decided_at INTEGER,
  decision_reason TEXT,
  locally_asserted INTEGER NOT NULL DEFAULT 0,
  scope TEXT NOT NULL CHECK (scope IN ('once', 'session'))
);
CREATE INDEX approvals_by_status ON approvals (status, expires_at);
CREATE INDEX approvals_by_session ON approvals (session_id);
`,
  postgres: `
CREATE TABLE sessions (
  id text PRIMARY KEY,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  principal text NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'suspended', 'completed', 'cancelled', 'failed')),
  config_hash text NOT NULL,
  title text,
  metadata text
);
CREATE INDEX sessions_by_created ON sessions (created_at);

CREATE TABLE messages (
  session_id text NOT NULL REFERENCES sessions (id),
  seq integer NOT NULL,
  role text NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  content text NOT NULL,
  created_at bigint NOT NULL,
  batch integer,
  PRIMARY KEY (session_id, seq)
);

CREATE TABLE audit_events (
  session_id text NOT NULL,
  seq bigint NOT NULL,
  call_id text NOT NULL,
  type text NOT NULL,
  tool text NOT NULL,
  at bigint NOT NULL,
  event text NOT NULL,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  PRIMARY KEY (session_id, seq)
);
CREATE FUNCTION docket_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit events are append-only';
END
$$;
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION docket_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION docket_append_only();

CREATE TABLE chain_heads (
  session_id text PRIMARY KEY,
  seq bigint NOT NULL,
  hash text NOT NULL
);

CREATE TABLE calls (
  session_id text NOT NULL,
  call_id text NOT NULL,
  tool text NOT NULL,
  writes boolean,
  principal text,
  state text NOT NULL CHECK (state IN ('requested', 'claimed', 'started', 'finished', 'interrupted')),
  status text,
  reason text,
  decision text,
  rule text,
  dedupe_key text,
  owner text,
  outcome text,
  result text,
  seen_at bigint NOT NULL,
  requested_at bigint,
  claimed_at bigint,
  started_at bigint,
  finished_at bigint,
  PRIMARY KEY (session_id, call_id)
);
CREATE INDEX calls_by_call ON calls (call_id);
CREATE INDEX calls_by_seen ON calls (seen_at);
CREATE INDEX calls_by_dedupe ON calls (session_id, tool, dedupe_key) WHERE dedupe_key IS NOT NULL;
CREATE INDEX calls_open ON calls (state) WHERE state IN ('claimed', 'started');

CREATE TABLE approvals (
  id text PRIMARY KEY,
  session_id text,
  call_id text NOT NULL,
  tool text NOT NULL,
  canonical_args text NOT NULL,
  args_hash text NOT NULL,
  rule text,
  reason text,
  requested_by text NOT NULL,
  approvers text,
  created_at bigint NOT NULL,
  expires_at bigint,
  status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'expired')),
  decided_by text,
  decided_at bigint,
  decision_reason text,
  locally_asserted boolean NOT NULL DEFAULT false,
  scope text NOT NULL CHECK (scope IN ('once', 'session'))
);
CREATE INDEX approvals_by_status ON approvals (status, expires_at);
CREATE INDEX approvals_by_session ON approvals (session_id);
`,
};
