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
 * A server process left working on a statement docket stopped waiting for, and the client port
 * its connection came from (which tells it from a later process given the same number).
 */
interface AbandonedBackend {
  readonly pid: number;
  readonly port: number | undefined;
}

const abandonedByPool = new WeakMap<pg.Pool, Set<AbandonedBackend>>();

/**
 * A pool whose every wait on PostgreSQL is bounded (`PostgresBounds`): a connection not made,
 * or not free, within `connectTimeoutMs`, and a statement not answered within `queryTimeoutMs`,
 * each fail with a `store_timeout` that says so; TCP keep-alives find an idle connection to a
 * vanished host. A database that stops answering (a network cut without a reset, a host gone)
 * then fails what needs it instead of holding it for ever: fail closed. 0 is pg's own "no
 * limit" for both. The server processes of statements it stopped waiting for are remembered
 * for `reapAbandoned`.
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
  const abandoned = new Set<AbandonedBackend>();
  const pool = new (boundedPoolClass(Pool, connectTimeoutMs))({
    ...options,
    ...clientBounds({ connectTimeoutMs, queryTimeoutMs }),
    ...(queryTimeoutMs > 0
      ? { Client: boundedClient(Client, queryTimeoutMs, (backend) => abandoned.add(backend)) }
      : {}),
  });
  abandonedByPool.set(pool, abandoned);
  return pool;
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
  const Bounded =
    bounds.queryTimeoutMs > 0 ? boundedClient(Client, bounds.queryTimeoutMs, () => {}) : Client;
  return new Bounded({ ...options, ...clientBounds(bounds) });
}

/**
 * End the server processes left working on statements this pool stopped waiting for, and wait
 * until they are gone: what such a process had not committed is then rolled back, and what it
 * had not yet been sent never runs. Asked before a commit in doubt is settled (`committed`), so
 * that the answer cannot change after it is given. Rejects when the database cannot be asked;
 * the doubt then stays.
 *
 * @example
 * ```ts
 * declare const pool: import("pg").Pool; // from boundedPool
 * await reapAbandoned(pool);
 * ```
 */
export async function reapAbandoned(pool: pg.Pool): Promise<void> {
  const abandoned = abandonedByPool.get(pool);
  if (abandoned === undefined || abandoned.size === 0) return;
  const backends = [...abandoned];
  const pids = backends.map((backend) => backend.pid);
  // A Unix socket's connection has no port (-1): its process id alone names it.
  const ports = backends.map((backend) => backend.port ?? -1);
  const match = `FROM unnest($1::int[], $2::int[]) AS b(pid, port) JOIN pg_stat_activity a
    ON a.pid = b.pid AND (a.client_port IS NULL OR a.client_port = -1 OR b.port = -1 OR a.client_port = b.port)`;
  await pool.query(`SELECT pg_terminate_backend(a.pid) ${match}`, [pids, ports]);
  for (let look = 0; ; look += 1) {
    const left = await pool.query(`SELECT count(*)::int AS n ${match}`, [pids, ports]);
    if (Number(left.rows[0]?.n ?? 0) === 0) break;
    if (look >= 200) throw new Error("a server process docket stopped waiting for did not end");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  for (const backend of backends) abandoned.delete(backend);
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

/** pg's Client whose statements with no answer in time fail in words, their process kept. */
function boundedClient(
  Client: typeof pg.Client,
  queryTimeoutMs: number,
  abandon: (backend: AbandonedBackend) => void,
): typeof pg.Client {
  // pg's overloads (a callback or a promise, a config or a text) are one method at run time.
  class BoundedClient extends (Client as unknown as new (
    ...args: unknown[]
  ) => { query(...args: unknown[]): unknown; processID: number | null; connection?: unknown }) {
    private worded(error: Error | null): Error | null {
      if (error === null || !isQueryTimeout(error) || error instanceof DocketError) return error;
      if (typeof this.processID === "number") {
        const stream = (this.connection as { stream?: { localPort?: number } } | undefined)?.stream;
        abandon({ pid: this.processID, port: stream?.localPort });
      }
      return timedOut(
        `PostgreSQL did not answer within ${queryTimeoutMs} ms (the store URL's query_timeout), so docket stopped waiting: the database or the network to it is not answering.`,
        error,
      );
    }

    override query(...args: unknown[]): unknown {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === "function") {
        args[last] = (error: Error | null, result?: unknown) =>
          (callback as QueryCallback)(this.worded(error), result);
        return super.query(...args);
      }
      const result = super.query(...args);
      if (result instanceof Promise) {
        return result.catch((error: Error) => {
          throw this.worded(error);
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
