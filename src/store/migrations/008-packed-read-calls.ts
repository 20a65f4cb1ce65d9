import type { Migration } from "./migration.js";

/**
 * Version 8: a SQLite `audit_events` row may hold all the events of one read call, their
 * canonical JSON texts joined by newlines, with the seq, type and at of the last one (see
 * `sqlite/trail-rows.ts`, ADR 0015). The tables do not change; the version does, so that an
 * older docket, which would read such a row as one broken event, refuses the store
 * (`store_too_new`) instead. PostgreSQL keeps one row per event.
 *
 * @example
 * ```ts
 * packedReadCalls.version; // 8
 * ```
 */
export const packedReadCalls: Migration = {
  version: 8,
  name: "packed read calls",
  sqlite: "SELECT 1;",
  postgres: "SELECT 1;",
};
