import type { Migration } from "./migration.js";

/**
 * Version 9: leaner `calls` rows (ADR 0018).
 *
 * - SQLite drops the `calls_by_call` index. Model call ids are random, so every call's entry
 *   landed on its own page of that index, and a commit writes every page it touched to the
 *   write-ahead log in full: about ten 4 KB frames a batch of ten calls. A call id without its
 *   session is now found through the primary key, one probe per session
 *   (`SQLITE_SESSIONS_OF_CALL`). PostgreSQL keeps the index: its cost is round trips, not
 *   frames.
 * - Both engines store a finished call's outcome without the message and output its saved
 *   result already holds (`store-rows.ts`, `compactOutcome`); rows written before are read as
 *   they stand. An older docket would read such an outcome without its message, so the version
 *   moves and an older docket refuses the store (`store_too_new`).
 *
 * @example
 * ```ts
 * leanCallsRows.version; // 9
 * ```
 */
export const leanCallsRows: Migration = {
  version: 9,
  name: "lean calls rows",
  sqlite: "DROP INDEX IF EXISTS calls_by_call;",
  postgres: "SELECT 1;",
};
