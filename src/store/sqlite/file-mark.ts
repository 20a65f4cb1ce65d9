import type { Database, Statement } from "./sqlite-driver.js";

/**
 * What a connection had seen of its file when a cache was filled.
 *
 * @example
 * ```ts
 * declare const marks: FileMarks;
 * const mark: FileMark = marks.latest();
 * mark.version; // the data_version it was taken at
 * ```
 */
export interface FileMark {
  /** `PRAGMA data_version`: moves whenever another connection commits to the file. */
  readonly version: number;
  /** The connection's count of undone transactions: moves when its own work is rolled back. */
  readonly undone: number;
}

/**
 * Tells whether a connection's file can have changed since a mark, other than by this
 * connection's own committed writes: a row read (or written) since then still reads the same. A
 * cache of rows is kept only with a mark, and used only while `unchanged` holds; inside a write
 * transaction (`BEGIN IMMEDIATE`), that answer holds until its commit.
 *
 * The version costs a statement (about 1.5 µs): it is read at most once per transaction, and a
 * mark may be an older one (`latest`), which only makes `unchanged` answer false more often.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * const marks = new FileMarks(db);
 * const mark = marks.latest();
 * // … read rows and keep them …
 * marks.unchanged(mark); // false once another process committed to the file
 * ```
 */
export class FileMarks {
  private readonly versionStatement: Statement;
  /** The version last read, and in which transaction (0: outside one). */
  private seen: { version: number; transaction: number } | undefined;

  constructor(private readonly db: Database) {
    this.versionStatement = db.prepare("PRAGMA data_version").pluck();
  }

  /**
   * A mark to keep with what is read next: the version last seen if there is one (another
   * connection's commit since then moves the version, so the mark is only ever too old).
   */
  latest(): FileMark {
    const version = this.seen?.version ?? this.version();
    return { version, undone: this.db.undone };
  }

  /** True when nothing but this connection's committed writes can have changed the file. */
  unchanged(mark: FileMark): boolean {
    return this.db.undone === mark.undone && this.version() === mark.version;
  }

  private version(): number {
    const transaction = this.db.inTransaction ? this.db.begun : 0;
    const seen = this.seen;
    if (seen !== undefined && transaction !== 0 && seen.transaction === transaction) {
      return seen.version;
    }
    const version = Number(this.versionStatement.get());
    this.seen = { version, transaction };
    return version;
  }
}
