import type pg from "pg";
import { DocketError } from "../../errors/docket-error.js";

type QueryCallback = (error: Error | null, result?: unknown) => void;

/**
 * Whether pg gave up waiting for a statement's answer (`query_timeout`, the store URL's
 * `?query_timeout=MS`): pg's own error, or the `store_timeout` a `boundedClient` makes of it.
 *
 * @example
 * ```ts
 * isQueryTimeout(new Error("Query read timeout")); // true
 * ```
 */
export function isQueryTimeout(error: unknown): boolean {
  if (error instanceof DocketError) return error.code === "store_timeout";
  return error instanceof Error && error.message === "Query read timeout";
}

/**
 * pg's `Client` for a pool whose statements have `queryTimeoutMs` to be answered: a statement
 * that has none by then fails with a `store_timeout` that says so, in words a command prints as
 * they are, instead of pg's "Query read timeout". Every other outcome is pg's own.
 *
 * @example
 * ```ts
 * const { Client, Pool } = (await import("pg")).default;
 * const pool = new Pool({ query_timeout: 60_000, Client: boundedClient(Client, 60_000) });
 * ```
 */
export function boundedClient(Client: typeof pg.Client, queryTimeoutMs: number): typeof pg.Client {
  const worded = (error: Error | null): Error | null =>
    error !== null && isQueryTimeout(error) && !(error instanceof DocketError)
      ? new DocketError(
          "store_timeout",
          `PostgreSQL did not answer within ${queryTimeoutMs} ms (the store URL's query_timeout), so docket stopped waiting: the database or the network to it is not answering.`,
          { cause: error },
        )
      : error;
  // pg's overloads (a callback or a promise, a config or a text) are one method at run time.
  class BoundedClient extends (Client as unknown as new (
    ...args: unknown[]
  ) => { query(...args: unknown[]): unknown }) {
    override query(...args: unknown[]): unknown {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        args[last] = (error: Error | null, result?: unknown) =>
          (callback as QueryCallback)(worded(error), result);
        return super.query(...args);
      }
      const result = super.query(...args);
      if (result instanceof Promise) {
        return result.catch((error: Error) => {
          throw worded(error);
        });
      }
      return result;
    }
  }
  return BoundedClient as unknown as typeof pg.Client;
}

/** The store URL's bounds on waiting for PostgreSQL (`parseStoreUrl`'s postgres target). */
export interface PostgresBounds {
  readonly connectTimeoutMs: number;
  readonly queryTimeoutMs: number;
}

/**
 * pg's options that bound every wait on PostgreSQL: a connection not made within
 * `connectTimeoutMs`, a statement not answered within `queryTimeoutMs` (a `store_timeout`), TCP
 * keep-alives on idle connections, and (`inTransactions`) the server ending a transaction its
 * client left hanging, with the session locks it held. A database that stops answering (a
 * network cut without a reset, a host gone) then fails what needs it, instead of holding it for
 * ever: fail closed. 0 is pg's own "no limit" for both.
 *
 * @example
 * ```ts
 * const pg = (await import("pg")).default;
 * const pool = new pg.Pool({
 *   connectionString: "postgres://db/docket",
 *   ...boundedOptions(pg.Client, { connectTimeoutMs: 10_000, queryTimeoutMs: 60_000 }),
 * });
 * ```
 */
export function boundedOptions(
  Client: typeof pg.Client,
  { connectTimeoutMs, queryTimeoutMs }: PostgresBounds,
  { inTransactions = true }: { inTransactions?: boolean } = {},
): pg.PoolConfig {
  return {
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(queryTimeoutMs > 0
      ? {
          query_timeout: queryTimeoutMs,
          Client: boundedClient(Client, queryTimeoutMs),
          // docket never waits on its own work inside a transaction.
          ...(inTransactions ? { idle_in_transaction_session_timeout: queryTimeoutMs } : {}),
        }
      : {}),
  };
}
