import type { Database, Statement } from "better-sqlite3";

/** Rows per statement at most, a power of two: 64 rows of 19 columns stay far below SQLite's limit of 32,766 parameters. */
const MAX_ROWS = 64;

/**
 * An INSERT of any number of rows, run as few multi-row statements (`VALUES (…), (…), …`) of
 * power-of-two sizes, each prepared once. Per statement, better-sqlite3 costs about what SQLite's own work
 * for a small row does, so a batch's rows in one statement cost less than a statement each.
 *
 * @example
 * ```ts
 * const insert = new MultiRowInsert(db, "INSERT INTO t (a, b) VALUES", 2);
 * insert.run([1, "x", 2, "y"]); // two rows, one statement
 * ```
 */
export class MultiRowInsert {
  private readonly statements: (Statement | undefined)[] = [];

  /** `head` is the statement up to VALUES; `tail` follows the rows (an ON CONFLICT clause). */
  constructor(
    private readonly db: Database,
    private readonly head: string,
    private readonly columns: number,
    private readonly tail = "",
  ) {}

  /** Insert the rows in `values`, `columns` values per row, in order. */
  run(values: readonly unknown[]): void {
    const rows = values.length / this.columns;
    if (!Number.isInteger(rows)) {
      throw new RangeError(`${values.length} values do not make rows of ${this.columns}`);
    }
    // Statements of 64, 32, 16, ... 1 rows: at most seven prepared per table and connection.
    let first = 0;
    while (first < rows) {
      let count = MAX_ROWS;
      while (count > rows - first) count >>= 1;
      const start = first * this.columns;
      const slice = count === rows ? values : values.slice(start, start + count * this.columns);
      this.statement(count).run(slice);
      first += count;
    }
  }

  private statement(rows: number): Statement {
    let statement = this.statements[rows];
    if (!statement) {
      const row = `(${new Array(this.columns).fill("?").join(", ")})`;
      statement = this.db.prepare(
        `${this.head} ${new Array(rows).fill(row).join(", ")}${this.tail ? ` ${this.tail}` : ""}`,
      );
      this.statements[rows] = statement;
    }
    return statement;
  }
}
