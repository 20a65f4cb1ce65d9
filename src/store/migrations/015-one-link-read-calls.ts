import type { Migration } from "./migration.js";

/**
 * Version 15: a SQLite `audit_events` row holding a read call's events is one link of the
 * chain, its events joined as a JSON array (`joinedLinkText`) and hashed once (ADR 0077),
 * where version 8's packed row chained each of its events. The tables do not change; rows
 * written before keep their form and still verify. The version moves so that an older docket,
 * which would read the new rows as broken links and cry tampering, refuses the store
 * (`store_too_new`) instead. PostgreSQL keeps one row per event.
 *
 * @example
 * ```ts
 * oneLinkReadCalls.version; // 15
 * ```
 */
export const oneLinkReadCalls: Migration = {
  version: 15,
  name: "one link per read call",
  sqlite: "SELECT 1;",
  postgres: "SELECT 1;",
};
