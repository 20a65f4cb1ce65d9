import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DocketError } from "../../errors/docket-error.js";
import { quietSqliteWarning } from "../../shared/quiet-sqlite-warning.js";
import type { Database, RunResult, Statement, Transaction } from "./sqlite-driver.js";
import { sqliteCodeFromMessage, sqliteCodeName } from "./sqlite-result-codes.js";

// What docket uses of `node:sqlite` (Node 22.13+), declared here: the project's @types/node
// line predates the module.
interface StatementSync {
  run(...params: never[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: never[]): unknown;
  all(...params: never[]): unknown[];
  iterate(...params: never[]): Iterator<unknown>;
  setReturnArrays(enabled: boolean): void;
}

interface DatabaseSync {
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
  prepare(source: string): StatementSync;
  exec(source: string): void;
  close(): void;
}

interface NodeSqlite {
  DatabaseSync: new (
    path: string,
    options?: { readOnly?: boolean; timeout?: number },
  ) => DatabaseSync;
}

let loaded: NodeSqlite | undefined;

/** `node:sqlite`, loaded on first use, without Node 22's ExperimentalWarning for it. */
function nodeSqlite(): NodeSqlite {
  if (loaded) return loaded;
  try {
    loaded = quietSqliteWarning(
      () => createRequire(import.meta.url)("node:sqlite") as NodeSqlite,
    ) as NodeSqlite;
  } catch (error) {
    throw new DocketError(
      "store_open_failed",
      `A sqlite: store needs Node's node:sqlite (Node 22.13 or later; this is ${process.version}).`,
      { cause: error },
    );
  }
  return loaded;
}

/**
 * A driver error with SQLite's code as its `code` (`SQLITE_BUSY`, `SQLITE_CONSTRAINT_UNIQUE`):
 * `node:sqlite` reports the number (`errcode`) under the generic `ERR_SQLITE_ERROR` (Deno's only
 * the message, which is read instead).
 */
function named(error: unknown): unknown {
  const found = error as { code?: unknown; errcode?: unknown; message?: unknown } | null;
  if (!found || typeof found !== "object") return error;
  const code =
    typeof found.errcode === "number"
      ? sqliteCodeName(found.errcode)
      : sqliteCodeFromMessage(String(found.message ?? ""));
  if (code === undefined) return error;
  try {
    found.code = code;
  } catch {
    // A frozen error keeps its code.
  }
  return error;
}

function guarded<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw named(error);
  }
}

class NodeStatement implements Statement {
  private plucked = false;

  constructor(private readonly inner: StatementSync) {}

  run(...params: unknown[]): RunResult {
    const result = guarded(() => this.inner.run(...(params as never[])));
    return { changes: Number(result.changes), lastInsertRowid: result.lastInsertRowid };
  }

  get(...params: unknown[]): unknown {
    const row = guarded(() => this.inner.get(...(params as never[])));
    return this.plucked && row !== undefined ? (row as unknown as unknown[])[0] : row;
  }

  all(...params: unknown[]): unknown[] {
    const rows = guarded(() => this.inner.all(...(params as never[]))) as unknown[];
    return this.plucked ? rows.map((row) => (row as unknown[])[0]) : rows;
  }

  *iterate(...params: unknown[]): IterableIterator<unknown> {
    const rows = guarded(() => this.inner.iterate(...(params as never[])));
    try {
      for (;;) {
        const next = guarded(() => rows.next());
        if (next.done) return;
        yield this.plucked ? (next.value as unknown as unknown[])[0] : next.value;
      }
    } finally {
      // A loop that stops early (a limit, a throw) must reset the statement: left open, it keeps
      // its read snapshot, and the connection then sees no later commit and cannot write (busy).
      rows.return?.();
    }
  }

  pluck(toggle = true): this {
    this.plucked = toggle;
    // Rows as arrays: the first column is the first element, whatever the columns are named.
    this.inner.setReturnArrays(toggle);
    return this;
  }
}

class NodeDatabase implements Database {
  private depth = 0;
  private undoneCount = 0;
  private begunCount = 0;

  constructor(
    private readonly inner: DatabaseSync,
    readonly name: string,
    readonly readonly: boolean,
  ) {}

  get open(): boolean {
    return this.inner.isOpen;
  }

  get inTransaction(): boolean {
    return this.inner.isTransaction;
  }

  get begun(): number {
    return this.begunCount;
  }

  get undone(): number {
    return this.undoneCount;
  }

  get memory(): boolean {
    return this.name === ":memory:";
  }

  prepare(source: string): Statement {
    return new NodeStatement(guarded(() => this.inner.prepare(source)));
  }

  exec(source: string): this {
    guarded(() => this.inner.exec(source));
    return this;
  }

  pragma(source: string, { simple = false }: { simple?: boolean } = {}): unknown {
    const statement = this.prepare(`PRAGMA ${source}`);
    return simple ? statement.pluck().get() : statement.all();
  }

  transaction<F extends (...args: never[]) => unknown>(fn: F): Transaction<F> {
    const run =
      (begin: string) =>
      (...args: Parameters<F>): ReturnType<F> => {
        // Inside an open transaction, a savepoint: a nested failure undoes only its own part.
        if (this.inner.isTransaction) return this.savepoint(fn, args);
        this.exec(begin);
        this.begunCount += 1;
        try {
          const result = fn(...args) as ReturnType<F>;
          this.exec("COMMIT");
          return result;
        } catch (error) {
          this.undoneCount += 1;
          if (this.inner.isTransaction) this.inner.exec("ROLLBACK");
          throw error;
        }
      };
    return Object.assign(run("BEGIN"), {
      deferred: run("BEGIN DEFERRED"),
      immediate: run("BEGIN IMMEDIATE"),
      exclusive: run("BEGIN EXCLUSIVE"),
    });
  }

  serialize(): Buffer {
    const native = (this.inner as { serialize?: () => Uint8Array }).serialize;
    if (typeof native === "function") {
      const image = guarded(() => native.call(this.inner));
      return Buffer.from(image.buffer, image.byteOffset, image.byteLength);
    }
    // Node 22 has no serialize: the same image, written by SQLite through this connection.
    const file = join(tmpdir(), `docket-sqlite-image-${process.pid}-${Date.now()}.db`);
    try {
      this.inner.prepare("VACUUM INTO ?").run(file as never);
      return readFileSync(file);
    } finally {
      rmSync(file, { force: true });
    }
  }

  close(): this {
    if (this.inner.isOpen) this.inner.close();
    return this;
  }

  private savepoint<F extends (...args: never[]) => unknown>(
    fn: F,
    args: Parameters<F>,
  ): ReturnType<F> {
    this.depth += 1;
    const name = `docket_${this.depth}`;
    this.exec(`SAVEPOINT ${name}`);
    try {
      const result = fn(...args) as ReturnType<F>;
      this.exec(`RELEASE ${name}`);
      return result;
    } catch (error) {
      this.undoneCount += 1;
      if (this.inner.isTransaction) {
        this.inner.exec(`ROLLBACK TO ${name}`);
        this.inner.exec(`RELEASE ${name}`);
      }
      throw error;
    } finally {
      this.depth -= 1;
    }
  }
}

/**
 * Open a SQLite file (or `:memory:`) with Node's own `node:sqlite`: no native package to
 * install or build. Errors carry SQLite's code name in `code`, as the store expects.
 *
 * @example
 * ```ts
 * const db = openNodeSqlite(".docket/docket.db", { readOnly: true, timeoutMs: 5_000 });
 * db.prepare("SELECT count(*) FROM events").pluck().get();
 * ```
 */
export function openNodeSqlite(
  path: string,
  { readOnly = false, timeoutMs = 5_000 }: { readOnly?: boolean; timeoutMs?: number } = {},
): Database {
  const { DatabaseSync } = nodeSqlite();
  const inner = guarded(() => new DatabaseSync(path, { readOnly, timeout: timeoutMs }));
  // Older Node 22 lines have no `timeout` option: the pragma sets the same for every one.
  guarded(() => inner.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(timeoutMs))}`));
  return new NodeDatabase(inner, path, readOnly);
}
