import { closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DocketError } from "../../errors/docket-error.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import {
  checkSchemaVersion,
  LATEST_SCHEMA_VERSION,
  MIGRATIONS,
  SCHEMA_VERSION_TABLE,
} from "../migrations/migration.js";
import type { StoreTarget } from "../store-url.js";
import { openNodeSqlite } from "./node-sqlite-database.js";
import type { Database as SqliteDatabase } from "./sqlite-driver.js";

type SqliteTarget = Extract<StoreTarget, { engine: "sqlite" }>;

/**
 * Open (creating when needed) a SQLite store file and bring its schema up to date.
 *
 * The version is read before anything is written, so a file from a newer docket is refused
 * untouched (`store_too_new`). Then: WAL (readers never block the writer), the configured
 * `synchronous` (see SqliteStore for the durability trade-off), a busy timeout so that several
 * processes can share the file, foreign keys on, and the pending migrations in one
 * `BEGIN IMMEDIATE` transaction (the version is read again under the write lock, so two
 * processes opening a new file do not both migrate).
 *
 * @example
 * ```ts
 * import { parseStoreUrl } from "../store-url.js";
 * const target = parseStoreUrl("sqlite:.docket/docket.db");
 * if (target.engine === "sqlite") openSqliteDatabase(target, { readOnly: false, mustExist: false });
 * ```
 */
export function openSqliteDatabase(
  target: SqliteTarget,
  { readOnly, mustExist }: { readOnly: boolean; mustExist: boolean },
): SqliteDatabase {
  const memory = target.path === ":memory:";
  if (!memory) {
    if ((readOnly || mustExist) && !existsSync(target.path)) {
      throw new DocketError("store_not_found", maskSecrets(`There is no store at ${target.path}.`));
    }
    if (!readOnly && !existsSync(target.path)) createPrivately(target.path);
  }
  let db: SqliteDatabase;
  try {
    db = openNodeSqlite(target.path, { readOnly, timeoutMs: target.busyTimeoutMs });
  } catch (error) {
    throw new DocketError(
      "store_open_failed",
      maskSecrets(`The store at ${target.path} could not be opened: ${(error as Error).message}`),
      {
        cause: error,
      },
    );
  }
  try {
    db.pragma(`busy_timeout = ${target.busyTimeoutMs}`);
    const found = readVersion(db);
    checkSchemaVersion(found, `sqlite:${target.path}`);
    if (readOnly) {
      if (found < OLDEST_READ_AS_IS) {
        throw new DocketError(
          "store_outdated",
          `The store at ${target.path} has schema version ${found}; open it once read-write to migrate it to ${LATEST_SCHEMA_VERSION}.`,
        );
      }
      return db;
    }
    if (!memory) db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${target.synchronous}`);
    db.pragma("foreign_keys = ON");
    // Always a write, even when nothing is due: an unwritable file or folder is found here, at
    // open, not by the first call's intent.
    migrate(db, `sqlite:${target.path}`);
    return db;
  } catch (error) {
    db.close();
    throw unwritable(error, target.path) ?? damaged(error, target.path) ?? error;
  }
}

/**
 * A new store is its owner's only: its folder 0700 (when docket makes it) and the file 0600,
 * made before SQLite opens it, so that the -wal and -shm files SQLite makes take the same mode.
 */
function createPrivately(path: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  try {
    closeSync(openSync(path, "wx", 0o600));
  } catch (error) {
    // Another process made it first: it is opened as it is.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
}

/** A file that is not a database, or a damaged one, named with its path and what to do. */
function damaged(error: unknown, path: string): DocketError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== "SQLITE_CORRUPT" && code !== "SQLITE_NOTADB") return undefined;
  return new DocketError(
    "store_damaged",
    maskSecrets(
      `The store at ${path} is damaged (${(error as Error).message}): docket will not write to it. Run \`docket audit verify --store sqlite:${path}\` to see what can still be read, and restore the store from a backup.`,
    ),
    { cause: error },
  );
}

const UNWRITABLE = /^SQLITE_(READONLY|PERM|CANTOPEN|AUTH|IOERR)/;

/** A driver error that says the file cannot be written, as a DocketError naming the path. */
function unwritable(error: unknown, path: string): DocketError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !UNWRITABLE.test(code)) return undefined;
  const folder = code === "SQLITE_READONLY_DIRECTORY" ? " and its folder" : "";
  return new DocketError(
    "store_unwritable",
    maskSecrets(
      `The store at ${path} cannot be written (${code}): make the file${folder} writable by this user${code === "SQLITE_READONLY_DIRECTORY" ? "" : " (and its folder, for the -wal and -shm files)"}, or open it read-only.`,
    ),
    { cause: error },
  );
}

/**
 * The oldest schema a read-only open reads as it stands. Version 8 changed no table (a packed
 * read call is read by the same code as a row of one event), 9 dropped an index, and 10's calls
 * keyed by session number are told from the older key by the table's columns (`call-keys.ts`),
 * so a version-7 file, an auditor's evidence copy included, is listed and verified without the
 * write a migration would need.
 */
const OLDEST_READ_AS_IS = 7;

function readVersion(db: SqliteDatabase): number {
  const table = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'")
    .get();
  if (table === undefined) return 0;
  const version = db.prepare("SELECT version FROM schema_version WHERE id = 1").pluck().get();
  return version === undefined ? 0 : Number(version);
}

function migrate(db: SqliteDatabase, where: string): void {
  const run = db.transaction(() => {
    const current = readVersion(db);
    checkSchemaVersion(current, where);
    if (current === LATEST_SCHEMA_VERSION) {
      // A real write, though it changes nothing: SQLite opens a read-only file read-only without
      // a word, and only a write says so.
      db.prepare("UPDATE schema_version SET updated_at = updated_at WHERE id = 1").run();
      return;
    }
    db.exec(SCHEMA_VERSION_TABLE);
    for (const migration of MIGRATIONS) {
      if (migration.version > current) db.exec(migration.sqlite);
    }
    db.prepare(
      "INSERT INTO schema_version (id, version, updated_at) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version, updated_at = excluded.updated_at",
    ).run(LATEST_SCHEMA_VERSION, Date.now());
  });
  run.immediate();
}
