import type { Migration } from "./migration.js";

/**
 * Version 7: the hash of a claimed call's canonical arguments, kept on its `calls` row. A
 * call id is the model's, not unique: a repeated id is answered from the record only when the
 * tool and this hash match, never with another call's outcome (issue 19, item 5). Rows from
 * before it have none, and a repeat of their id is refused in words instead of answered.
 *
 * @example
 * ```ts
 * callArgumentsHash.version; // 7
 * ```
 */
export const callArgumentsHash: Migration = {
  version: 7,
  name: "call arguments hash",
  sqlite: "ALTER TABLE calls ADD COLUMN args_hash TEXT;",
  postgres: "ALTER TABLE calls ADD COLUMN IF NOT EXISTS args_hash text;",
};
