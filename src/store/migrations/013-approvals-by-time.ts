import type { Migration } from "./migration.js";

/**
 * Version 13 (12 is taken by a change built beside this one): approvals indexed by creation
 * time, the order every listing reads them in (newest first, `created_at DESC, id DESC`). The
 * console's decided view pages 100,000 decided requests: without this index each page sorted
 * every decided row before it could return 50 of them; with it, a page walks the index from
 * the newest and stops once it is full, and a time filter is a range of it (ADR 0045).
 * `IF NOT EXISTS`: a file rebuilt to an older version by hand (as the migration tests do) keeps
 * its indexes, and this step then finds its index there.
 *
 * @example
 * ```ts
 * approvalsByTime.version; // 13
 * ```
 */
export const approvalsByTime: Migration = {
  version: 13,
  name: "approvals by time",
  sqlite: `CREATE INDEX IF NOT EXISTS approvals_by_created ON approvals (created_at, id);`,
  postgres: `CREATE INDEX IF NOT EXISTS approvals_by_created ON approvals (created_at, id);`,
};
