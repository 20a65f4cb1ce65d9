import type pg from "pg";
import { DocketError } from "../../errors/docket-error.js";

type QueryCallback = (error: Error | null, result?: unknown) => void;

/** The store URL's bounds on waiting for PostgreSQL (`parseStoreUrl`'s postgres target). */
export interface PostgresBounds {
  readonly connectTimeoutMs: number;
  readonly queryTimeoutMs: number;
}

/**
 * Whether pg gave up waiting for a statement's answer (`query_timeout`, the store URL's
 * `?query_timeout=MS`): pg's own error, or the `store_timeout` a bounded client makes of it.
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
 * A pool whose every wait on PostgreSQL is bounded (`PostgresBounds`): a connection not made,
 * or not free, within `connectTimeoutMs`, and a statement not answered within `queryTimeoutMs`,
 * each fail with a `store_timeout` that says so; TCP keep-alives find an idle connection to a
 * vanished host. A database that stops answering (a network cut without a reset, a host gone)
 * then fails what needs it instead of holding it for ever: fail closed. 0 is pg's own "no
 * limit" for both. pg's timeout is the client's: the server may go on with a statement docket
 * stopped waiting for, which is why a commit in doubt is settled by moving the row its late
 * commit would need (`PostgresAuditLog.committed`).
 *
 * @example
 * ```ts
 * const pg = (await import("pg")).default;
 * const pool = boundedPool(pg, { connectionString: "postgres://db/docket" }, {
 *   connectTimeoutMs: 10_000,
 *   queryTimeoutMs: 60_000,
 * });
 * ```
 */
export function boundedPool(
  { Client, Pool }: typeof pg,
  options: pg.PoolConfig,
  { connectTimeoutMs, queryTimeoutMs }: PostgresBounds,
): pg.Pool {
  return new (boundedPoolClass(Pool, connectTimeoutMs))({
    ...options,
    ...clientBounds({ connectTimeoutMs, queryTimeoutMs }),
    ...(queryTimeoutMs > 0 ? { Client: boundedClient(Client, queryTimeoutMs) } : {}),
  });
}

/**
 * pg's options for one connection of its own (LISTEN) bounded as `boundedPool`'s are.
 *
 * @example
 * ```ts
 * const pg = (await import("pg")).default;
 * const client = boundedConnection(pg, { connectionString: "postgres://db/docket" }, {
 *   connectTimeoutMs: 10_000,
 *   queryTimeoutMs: 60_000,
 * });
 * ```
 */
export function boundedConnection(
  { Client }: typeof pg,
  options: pg.ClientConfig,
  bounds: PostgresBounds,
): pg.Client {
  const Bounded = bounds.queryTimeoutMs > 0 ? boundedClient(Client, bounds.queryTimeoutMs) : Client;
  return new Bounded({ ...options, ...clientBounds(bounds) });
}

function clientBounds({ connectTimeoutMs, queryTimeoutMs }: PostgresBounds): pg.ClientConfig {
  return {
    connectionTimeoutMillis: connectTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
  };
}

function timedOut(message: string, cause: unknown): DocketError {
  return new DocketError("store_timeout", message, { cause });
}

/** pg's Client whose statements with no answer in time fail in words. */
function boundedClient(Client: typeof pg.Client, queryTimeoutMs: number): typeof pg.Client {
  // pg's overloads (a callback or a promise, a config or a text) are one method at run time.
  class BoundedClient extends (Client as unknown as new (
    ...args: unknown[]
  ) => { query(...args: unknown[]): unknown }) {
    private worded(error: Error | null, waitedMs: number): Error | null {
      if (error === null || !isQueryTimeout(error) || error instanceof DocketError) return error;
      const bound =
        waitedMs === queryTimeoutMs ? "the store URL's query_timeout" : "a migration's bound";
      return timedOut(
        `PostgreSQL did not answer within ${waitedMs} ms (${bound}), so docket stopped waiting: the database or the network to it is not answering.`,
        error,
      );
    }

    override query(...args: unknown[]): unknown {
      // A statement may carry a bound of its own (a migration's); pg waits that long.
      const own = (args[0] as { query_timeout?: unknown } | null)?.query_timeout;
      const waitedMs = typeof own === "number" && own > 0 ? own : queryTimeoutMs;
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        args[last] = (error: Error | null, result?: unknown) =>
          (callback as QueryCallback)(this.worded(error, waitedMs), result);
        return super.query(...args);
      }
      const result = super.query(...args);
      if (result instanceof Promise) {
        return result.catch((error: Error) => {
          throw this.worded(error, waitedMs);
        });
      }
      return result;
    }
  }
  return BoundedClient as unknown as typeof pg.Client;
}

/** pg's Pool whose wait for a connection, made or freed, fails in words past its bound. */
function boundedPoolClass(Pool: typeof pg.Pool, connectTimeoutMs: number): typeof pg.Pool {
  const worded = (error: Error | null | undefined) =>
    error instanceof Error &&
    (error.message === "timeout exceeded when trying to connect" ||
      error.message === "Connection terminated due to connection timeout")
      ? timedOut(
          `PostgreSQL gave docket no connection within ${connectTimeoutMs} ms (the store URL's connect_timeout): the database or the network to it is not answering, or every connection is held by a statement that is.`,
          error,
        )
      : error;
  class BoundedPool extends (Pool as unknown as new (
    ...args: unknown[]
  ) => { connect(...args: unknown[]): unknown }) {
    override connect(...args: unknown[]): unknown {
      const callback = args[0];
      if (typeof callback === "function") {
        return super.connect((error: Error | undefined, ...rest: unknown[]) =>
          (callback as (...a: unknown[]) => void)(worded(error), ...rest),
        );
      }
      return (super.connect() as Promise<unknown>).catch((error: Error) => {
        throw worded(error);
      });
    }
  }
  return BoundedPool as unknown as typeof pg.Pool;
}
