import type { Migration } from "./migration.js";

/**
 * Version 16: a SQLite `audit_events` row may hold the events of several read calls, the
 * consecutive read calls of one session written in one commit (a turn's reads), as one link of
 * the chain (ADR 0086), where version 15 joined one read call's events. The row's columns are
 * its last event's; the others' call ids and tools are read from their texts. The tables do not
 * change; rows written before keep their form and still verify. The version moves so that an
 * older docket, which would give every event of such a row the last call's id and so cry
 * tampering, refuses the store (`store_too_new`) instead. PostgreSQL keeps one row per event.
 *
 * @example
 * ```ts
 * oneLinkReadTurns.version; // 16
 * ```
 */
export const oneLinkReadTurns: Migration = {
  version: 16,
  name: "one link per turn of read calls",
  sqlite: "SELECT 1;",
  postgres: "SELECT 1;",
};
