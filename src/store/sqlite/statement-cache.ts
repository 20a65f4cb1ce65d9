import type { Database, Statement } from "./sqlite-driver.js";

/**
 * Prepare each SQL text once per connection. Filter builders produce a handful of distinct
 * texts, so the cache stays small; preparing costs more than running a short query.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * const id = "ses_1";
 * const sql = statementCache(db);
 * sql("SELECT * FROM sessions WHERE id = ?").get(id);
 * ```
 */
export function statementCache(db: Database): (source: string) => Statement {
  const prepared = new Map<string, Statement>();
  return (source) => {
    let statement = prepared.get(source);
    if (!statement) {
      statement = db.prepare(source);
      prepared.set(source, statement);
    }
    return statement;
  };
}
