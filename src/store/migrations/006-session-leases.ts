import type { Migration } from "./migration.js";

/**
 * Version 6 (5 is the store's commit keys, built side by side for the same issue; no released
 * store has either): one runner per session across processes and machines (ADR 0011). A row per
 * session being run: who runs it, since when, and when the lease lapses unless its holder's
 * heartbeat renews it. No foreign key: a lease may be taken before its session's row is read.
 * Written to run again harmlessly (IF NOT EXISTS).
 *
 * @example
 * ```ts
 * sessionLeases.version; // 6
 * ```
 */
export const sessionLeases: Migration = {
  version: 6,
  name: "session leases",
  sqlite: `
CREATE TABLE IF NOT EXISTS session_leases (
  session_id TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  since INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`,
  postgres: `
CREATE TABLE IF NOT EXISTS session_leases (
  session_id text PRIMARY KEY,
  owner text NOT NULL,
  since bigint NOT NULL,
  expires_at bigint NOT NULL
);
`,
};
