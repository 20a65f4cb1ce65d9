import type { Pool, PoolClient } from "pg";
import { isQueryTimeout } from "./bounded-client.js";

/**
 * Run `fn` in one transaction on one pooled connection: COMMIT when it resolves, ROLLBACK when
 * it throws. A connection whose ROLLBACK fails is discarded rather than returned to the pool.
 *
 * @example
 * ```ts
 * declare const pool: import("pg").Pool;
 * await transaction(pool, async (client) => {
 *   await client.query("INSERT INTO t VALUES ($1)", [1]);
 * });
 * ```
 */
export function transaction<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
  { begin = "BEGIN" }: { begin?: string } = {},
): Promise<T> {
  return inTransactionClient(pool, async (client) => {
    await client.query(begin);
    const result = await fn(client);
    await client.query("COMMIT");
    return result;
  });
}

/**
 * Run `fn` on one pooled connection that sends its own BEGIN and COMMIT (to save round trips,
 * in the same query as its first and last statements): ROLLBACK when it throws, and a connection
 * whose ROLLBACK fails is discarded rather than returned to the pool.
 *
 * @example
 * ```ts
 * declare const pool: import("pg").Pool;
 * await inTransactionClient(pool, (client) => client.query("BEGIN; SELECT 1; COMMIT"));
 * ```
 */
export async function inTransactionClient<T>(
  pool: Pool,
  fn: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    return await fn(client);
  } catch (error) {
    if (isQueryTimeout(error)) {
      // The connection still owes the answer it timed out on: a ROLLBACK would queue behind
      // it and wait as long again. Dropped instead; the server rolls back what it left open.
      broken = true;
    } else {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Take the per-session advisory locks, in a fixed order so that two transactions locking several
 * sessions cannot deadlock. Held until the transaction ends. Every writer of a session's chain
 * or calls rows takes it first: appends from many processes are serialised per session.
 *
 * @example
 * ```ts
 * declare const client: import("pg").PoolClient; // inside a transaction
 * await lockSessions(client, ["ses_2", "ses_1"]);
 * ```
 */
export async function lockSessions(
  client: PoolClient,
  sessionIds: readonly string[],
): Promise<void> {
  const sorted = [...new Set(sessionIds)].sort();
  await client.query("SELECT pg_advisory_xact_lock(hashtext(s)) FROM unnest($1::text[]) AS s", [
    sorted,
  ]);
}

/**
 * Number the `?` placeholders of a query for PostgreSQL (`$1`, `$2`, …), so that filter
 * builders can be shared with SQLite. The queries passed here contain no literal `?`.
 *
 * @example
 * ```ts
 * numbered("SELECT * FROM t WHERE a = ? AND b = ?"); // "SELECT * FROM t WHERE a = $1 AND b = $2"
 * ```
 */
export function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => {
    n += 1;
    return `$${n}`;
  });
}

/**
 * The PostgreSQL error code (SQLSTATE) of a thrown error, if it has one.
 *
 * @example
 * ```ts
 * import { DocketError } from "../../errors/docket-error.js";
 * declare const error: unknown; // what an INSERT threw
 * if (sqlState(error) === "23505") throw new DocketError("duplicate_session", "…");
 * ```
 */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
