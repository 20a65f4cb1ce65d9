/** SQLite's result codes by number, primary and extended (sqlite.org/rescode.html). */
const PRIMARY = [
  "OK",
  "ERROR",
  "INTERNAL",
  "PERM",
  "ABORT",
  "BUSY",
  "LOCKED",
  "NOMEM",
  "READONLY",
  "INTERRUPT",
  "IOERR",
  "CORRUPT",
  "NOTFOUND",
  "FULL",
  "CANTOPEN",
  "PROTOCOL",
  "EMPTY",
  "SCHEMA",
  "TOOBIG",
  "CONSTRAINT",
  "MISMATCH",
  "MISUSE",
  "NOLFS",
  "AUTH",
  "FORMAT",
  "RANGE",
  "NOTADB",
  "NOTICE",
  "WARNING",
];

/** Extended codes: the primary code in the low byte, the extension's number above it. */
const EXTENDED: Record<string, readonly string[]> = {
  ERROR: ["MISSING_COLLSEQ", "RETRY", "SNAPSHOT"],
  IOERR: [
    "READ",
    "SHORT_READ",
    "WRITE",
    "FSYNC",
    "DIR_FSYNC",
    "TRUNCATE",
    "FSTAT",
    "UNLOCK",
    "RDLOCK",
    "DELETE",
    "BLOCKED",
    "NOMEM",
    "ACCESS",
    "CHECKRESERVEDLOCK",
    "LOCK",
    "CLOSE",
    "DIR_CLOSE",
    "SHMOPEN",
    "SHMSIZE",
    "SHMLOCK",
    "SHMMAP",
    "SEEK",
    "DELETE_NOENT",
    "MMAP",
    "GETTEMPPATH",
    "CONVPATH",
    "VNODE",
    "AUTH",
    "BEGIN_ATOMIC",
    "COMMIT_ATOMIC",
    "ROLLBACK_ATOMIC",
    "DATA",
    "CORRUPTFS",
    "IN_PAGE",
  ],
  LOCKED: ["SHAREDCACHE", "VTAB"],
  BUSY: ["RECOVERY", "SNAPSHOT", "TIMEOUT"],
  CANTOPEN: ["NOTEMPDIR", "ISDIR", "FULLPATH", "CONVPATH", "DIRTYWAL", "SYMLINK"],
  CORRUPT: ["VTAB", "SEQUENCE", "INDEX"],
  READONLY: ["RECOVERY", "CANTLOCK", "ROLLBACK", "DBMOVED", "CANTINIT", "DIRECTORY"],
  ABORT: ["ROLLBACK"],
  CONSTRAINT: [
    "CHECK",
    "COMMITHOOK",
    "FOREIGNKEY",
    "FUNCTION",
    "NOTNULL",
    "PRIMARYKEY",
    "TRIGGER",
    "UNIQUE",
    "VTAB",
    "ROWID",
    "PINNED",
    "DATATYPE",
  ],
  NOTICE: ["RECOVER_WAL", "RECOVER_ROLLBACK"],
  WARNING: ["AUTOINDEX"],
  AUTH: ["USER"],
};

/**
 * The name of a SQLite result code, as `SQLITE_` and its C name (`SQLITE_CONSTRAINT_PRIMARYKEY`
 * for 1555): what the store's error handling reads, whichever driver reported the number.
 *
 * @example
 * ```ts
 * sqliteCodeName(1555); // "SQLITE_CONSTRAINT_PRIMARYKEY"
 * sqliteCodeName(5); // "SQLITE_BUSY"
 * ```
 */
export function sqliteCodeName(code: number): string {
  const primary = PRIMARY[code & 0xff];
  if (primary === undefined) return `SQLITE_UNKNOWN_${code}`;
  const extension = code >> 8;
  if (extension === 0) return `SQLITE_${primary}`;
  const name = EXTENDED[primary]?.[extension - 1];
  return name === undefined ? `SQLITE_${primary}` : `SQLITE_${primary}_${name}`;
}

/** SQLite's own texts for its codes (sqlite3_errstr), for a runtime that reports no number. */
const BY_TEXT: readonly (readonly [RegExp, string])[] = [
  [/^(UNIQUE|PRIMARY KEY) constraint failed/, "SQLITE_CONSTRAINT_UNIQUE"],
  [/^(NOT NULL|CHECK|FOREIGN KEY) constraint failed/, "SQLITE_CONSTRAINT"],
  [/^database is locked/, "SQLITE_BUSY"],
  [/^database table is locked/, "SQLITE_LOCKED"],
  [/^attempt to write a readonly database/, "SQLITE_READONLY"],
  [/^unable to open database file/, "SQLITE_CANTOPEN"],
  [/^file is not a database/, "SQLITE_NOTADB"],
  [/^database disk image is malformed/, "SQLITE_CORRUPT"],
  [/^disk I\/O error/, "SQLITE_IOERR"],
  [/^database or disk is full/, "SQLITE_FULL"],
];

/**
 * The code name for an error message, where the runtime's `node:sqlite` gives no number (Deno's):
 * the primary code, or the constraint's kind. `undefined` when the text is not one of SQLite's.
 *
 * @example
 * ```ts
 * sqliteCodeFromMessage("UNIQUE constraint failed: sessions.id"); // "SQLITE_CONSTRAINT_UNIQUE"
 * ```
 */
export function sqliteCodeFromMessage(message: string): string | undefined {
  return BY_TEXT.find(([pattern]) => pattern.test(message))?.[1];
}
