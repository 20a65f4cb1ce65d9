import pg from "pg";

/** What `countPostgresCommits` saw: the commits, and every query's text (for a failure's message). */
export interface PostgresCommits {
  /** Transactions committed by COMMIT, and statements sent outside one that change rows. */
  readonly commits: () => number;
  readonly queries: () => readonly string[];
  readonly stop: () => void;
}

const COMMIT = /(^|;)\s*COMMIT\s*(;\s*)?$/i;
const WRITE = /^\s*(INSERT|UPDATE|DELETE|WITH)\b/i;

/**
 * Count the commits this process's pg clients make from now until `stop`: the store's own
 * connections only, so commits of other processes on the same server (another test run) do not
 * count. A commit is a query that ends a transaction with COMMIT (the audit append sends its
 * write and COMMIT as one query), or a statement that changes rows sent outside a transaction
 * (autocommitted). Read-only autocommitted queries (a look-up) are not commits of the trail.
 *
 * @example
 * ```ts
 * const counted = countPostgresCommits();
 * // … dispatch a call through a postgres: store …
 * counted.stop();
 * console.log(counted.commits());
 * ```
 */
export function countPostgresCommits(): PostgresCommits {
  const query = pg.Client.prototype.query;
  const texts: string[] = [];
  let commits = 0;
  const inTransaction = new WeakMap<object, boolean>();
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    const text =
      typeof first === "string" ? first : String((first as { text?: unknown })?.text ?? "");
    texts.push(text);
    if (/^\s*BEGIN\b/i.test(text)) inTransaction.set(this, true);
    if (COMMIT.test(text)) {
      commits += 1;
      inTransaction.set(this, false);
    } else if (/^\s*ROLLBACK\b/i.test(text)) inTransaction.set(this, false);
    else if (!inTransaction.get(this) && WRITE.test(text)) commits += 1;
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  return {
    commits: () => commits,
    queries: () => texts,
    stop: () => {
      pg.Client.prototype.query = query;
    },
  };
}
