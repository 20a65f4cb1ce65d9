import type { Migration } from "./migration.js";

/**
 * The approvals' text columns the search reads (approval-query.ts reads these, so that what is
 * searched is what is indexed: a column searched but not indexed would be missed by the index).
 * A column added to the search needs a new migration that indexes it.
 *
 * @example
 * ```ts
 * APPROVALS_SEARCH_COLUMNS.includes("canonical_args"); // true
 * ```
 */
export const APPROVALS_SEARCH_COLUMNS: readonly string[] = [
  "id",
  "call_id",
  "session_id",
  "tool",
  "canonical_args",
  "rule",
  "reason",
  "requested_by",
  "decided_by",
  "decision_reason",
];
const listed = APPROVALS_SEARCH_COLUMNS.join(", ");
const of = (row: "new" | "old") =>
  APPROVALS_SEARCH_COLUMNS.map((column) => `${row}.${column}`).join(", ");

/**
 * PostgreSQL's indexed text: every searched column joined by a space. The search's prefilter
 * uses this very expression, so that the planner recognises the index (a test asserts it does).
 *
 * @example
 * ```ts
 * `SELECT id FROM approvals WHERE (${APPROVALS_SEARCH_DOCUMENT}) ILIKE '%su-88%'`;
 * ```
 */
export const APPROVALS_SEARCH_DOCUMENT: string = APPROVALS_SEARCH_COLUMNS.map(
  (column) => `coalesce(${column}, '')`,
).join(" || ' ' || ");

/**
 * Version 14: a full-text index of the approvals' searched text, so that the decided view's
 * search for a rare text reads the few rows that hold it, not every decided row (issue 39,
 * ADR 0060). SQLite: an FTS5 table with the trigram tokenizer over the same rows (external
 * content keyed by `rowid`), kept in step by triggers on insert, delete and on an update of a
 * searched column, and filled from the rows already there. PostgreSQL: a GIN index of pg_trgm
 * trigrams over the columns joined; the extension is created where it is missing (trusted since
 * PostgreSQL 13, so a database owner may) and, where it cannot be, the index is left out and the
 * search stays a scan: slower, never wrong, never a failed open.
 *
 * @example
 * ```ts
 * approvalsSearch.version; // 14
 * ```
 */
export const approvalsSearch: Migration = {
  version: 14,
  name: "approvals search",
  sqlite: `
CREATE VIRTUAL TABLE IF NOT EXISTS approvals_search USING fts5(
  ${listed},
  content = 'approvals', content_rowid = 'rowid', tokenize = 'trigram'
);
CREATE TRIGGER IF NOT EXISTS approvals_search_added AFTER INSERT ON approvals BEGIN
  INSERT INTO approvals_search (rowid, ${listed}) VALUES (new.rowid, ${of("new")});
END;
CREATE TRIGGER IF NOT EXISTS approvals_search_removed AFTER DELETE ON approvals BEGIN
  INSERT INTO approvals_search (approvals_search, rowid, ${listed})
    VALUES ('delete', old.rowid, ${of("old")});
END;
CREATE TRIGGER IF NOT EXISTS approvals_search_changed AFTER UPDATE OF ${listed} ON approvals BEGIN
  INSERT INTO approvals_search (approvals_search, rowid, ${listed})
    VALUES ('delete', old.rowid, ${of("old")});
  INSERT INTO approvals_search (rowid, ${listed}) VALUES (new.rowid, ${of("new")});
END;
INSERT INTO approvals_search (approvals_search) VALUES ('rebuild');
`,
  postgres: `
DO $migration$
DECLARE
  home text;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    BEGIN
      -- In public where it can be, so that dropping one store's schema keeps every other's index.
      CREATE EXTENSION pg_trgm SCHEMA public;
    EXCEPTION WHEN others THEN
      BEGIN
        CREATE EXTENSION pg_trgm;
      EXCEPTION WHEN others THEN
        RAISE NOTICE 'pg_trgm is not available: the approvals search is not indexed';
      END;
    END;
  END IF;
  SELECT n.nspname INTO home FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';
  IF home IS NOT NULL THEN
    EXECUTE 'CREATE INDEX IF NOT EXISTS approvals_search ON approvals USING gin (('
      || ${`'${APPROVALS_SEARCH_DOCUMENT.replaceAll("'", "''")}'`}
      || ') ' || quote_ident(home) || '.gin_trgm_ops)';
  END IF;
END
$migration$;
`,
};
