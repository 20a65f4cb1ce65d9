import type { Migration } from "./migration.js";

/**
 * Version 12: which process signed each checkpoint (`audit_checkpoints.owner`), and which
 * signing processes may still owe copies to the digest log (`audit_deliveries_owed`, a row per
 * process, written in the commit of its first checkpoint and removed once it closed with
 * everything delivered). A process killed between a checkpoint's commit and its delivery
 * leaves its row: recovery re-delivers what it owed, and verify reads a missing copy of such a
 * checkpoint as "not delivered yet", not as tampering (ADR 0049). Checkpoints signed before
 * this version have no owner and were delivered, as far as anyone can tell.
 *
 * @example
 * ```ts
 * owedDeliveries.version; // 12
 * ```
 */
export const owedDeliveries: Migration = {
  version: 12,
  name: "owed digest deliveries",
  sqlite: `
ALTER TABLE audit_checkpoints ADD COLUMN owner TEXT;
CREATE INDEX IF NOT EXISTS audit_checkpoints_owner ON audit_checkpoints (owner) WHERE owner IS NOT NULL;
CREATE TABLE IF NOT EXISTS audit_deliveries_owed (
  owner TEXT PRIMARY KEY,
  started_at INTEGER NOT NULL
);
`,
  postgres: `
ALTER TABLE audit_checkpoints ADD COLUMN IF NOT EXISTS owner text;
CREATE INDEX IF NOT EXISTS audit_checkpoints_owner ON audit_checkpoints (owner) WHERE owner IS NOT NULL;
CREATE TABLE IF NOT EXISTS audit_deliveries_owed (
  owner text PRIMARY KEY,
  started_at bigint NOT NULL
);
`,
};
