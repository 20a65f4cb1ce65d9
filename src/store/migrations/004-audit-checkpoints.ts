import type { Migration } from "./migration.js";

/**
 * Version 4 (after 3, approval grants, which reached main first; 2 was never released): the
 * store's random id (named by every signed checkpoint, so that a checkpoint of
 * one store cannot vouch for another) and the signed checkpoints themselves, append-only like
 * the events. The signed text (`body`) is the truth; the columns beside it are for lookups.
 * Written to run again harmlessly (IF NOT EXISTS, no second id): a development store may have
 * been given it under the number 2.
 *
 * @example
 * ```ts
 * auditCheckpoints.version; // 4
 * ```
 */
export const auditCheckpoints: Migration = {
  version: 4,
  name: "signed audit checkpoints",
  sqlite: `
CREATE TABLE IF NOT EXISTS store_meta (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  store_id TEXT NOT NULL
);
INSERT OR IGNORE INTO store_meta (id, store_id) VALUES (1, lower(hex(randomblob(16))));

CREATE TABLE IF NOT EXISTS audit_checkpoints (
  session_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  messages_seq INTEGER NOT NULL,
  at INTEGER NOT NULL,
  body TEXT NOT NULL,
  hash TEXT NOT NULL,
  signature TEXT NOT NULL,
  PRIMARY KEY (session_id, n)
);
CREATE TRIGGER IF NOT EXISTS audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
BEGIN SELECT RAISE(ABORT, 'audit checkpoints are append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
BEGIN SELECT RAISE(ABORT, 'audit checkpoints are append-only'); END;
`,
  postgres: `
CREATE TABLE IF NOT EXISTS store_meta (
  id integer PRIMARY KEY CHECK (id = 1),
  store_id text NOT NULL
);
INSERT INTO store_meta (id, store_id) VALUES (1, md5(random()::text || clock_timestamp()::text))
  ON CONFLICT (id) DO NOTHING;

CREATE TABLE IF NOT EXISTS audit_checkpoints (
  session_id text NOT NULL,
  n bigint NOT NULL,
  seq bigint NOT NULL,
  messages_seq bigint NOT NULL,
  at bigint NOT NULL,
  body text NOT NULL,
  hash text NOT NULL,
  signature text NOT NULL,
  PRIMARY KEY (session_id, n)
);
CREATE OR REPLACE TRIGGER audit_checkpoints_no_change BEFORE UPDATE OR DELETE ON audit_checkpoints
  FOR EACH ROW EXECUTE FUNCTION docket_append_only();
CREATE OR REPLACE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION docket_append_only();
`,
};
