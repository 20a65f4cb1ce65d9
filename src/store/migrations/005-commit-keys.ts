import type { Migration } from "./migration.js";

/**
 * Version 5: the last commit of each open store instance (`owner`), written in the same
 * transaction as its events, so that a retry after a commit whose answer was lost (the
 * connection dropped during COMMIT) can tell whether it happened. One row per instance, made
 * at open and removed at close; a row left by a killed process is a few bytes. SQLite has the
 * table for a schema alike on both engines, though its commits never end in doubt.
 *
 * @example
 * ```ts
 * commitKeys.version; // 5
 * ```
 */
export const commitKeys: Migration = {
  version: 5,
  name: "commit keys",
  sqlite: `
CREATE TABLE IF NOT EXISTS store_commits (
  owner TEXT PRIMARY KEY,
  commit_key INTEGER NOT NULL,
  at INTEGER NOT NULL
);
`,
  postgres: `
CREATE TABLE IF NOT EXISTS store_commits (
  owner text PRIMARY KEY,
  commit_key bigint NOT NULL,
  at bigint NOT NULL
);
`,
};
