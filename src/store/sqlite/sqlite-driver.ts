/**
 * What the SQLite store asks of a SQLite connection: the few calls the engine makes, in the
 * shape its code was written against. `openNodeSqlite` (node-sqlite-database.ts) gives one over
 * Node's own `node:sqlite`, so the store needs no native package (ADR 0053).
 *
 * @example
 * ```ts
 * import { openNodeSqlite } from "./node-sqlite-database.js";
 * const db: Database = openNodeSqlite("/tmp/store.db", { readOnly: false, timeoutMs: 5_000 });
 * const n = db.prepare("SELECT count(*) FROM events").pluck().get();
 * ```
 */
export interface Database {
  readonly open: boolean;
  readonly inTransaction: boolean;
  readonly name: string;
  readonly memory: boolean;
  readonly readonly: boolean;
  /**
   * How many transactions or savepoints of this connection ended undone (rolled back, or a
   * failed COMMIT): what a cache noted of its own writes before a change of it may be gone.
   */
  readonly undone: number;
  /** How many transactions (not savepoints) this connection began: names the open one. */
  readonly begun: number;
  prepare(source: string): Statement;
  exec(source: string): this;
  /** `PRAGMA source`: its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  /** `fn` in a transaction (a savepoint when one is open), committed, or rolled back on a throw. */
  transaction<F extends (...args: never[]) => unknown>(fn: F): Transaction<F>;
  /** The whole database as this connection sees it, as one buffer (a file image). */
  serialize(): Buffer;
  close(): this;
}

/** A prepared statement. */
export interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  /** Rows as their first column's value from now on (`false` turns it off). */
  pluck(toggle?: boolean): this;
}

/** What a write statement changed. */
export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** A function run as a transaction: deferred by default, or in the named mode. */
export interface Transaction<F extends (...args: never[]) => unknown> {
  (...args: Parameters<F>): ReturnType<F>;
  deferred(...args: Parameters<F>): ReturnType<F>;
  immediate(...args: Parameters<F>): ReturnType<F>;
  exclusive(...args: Parameters<F>): ReturnType<F>;
}
