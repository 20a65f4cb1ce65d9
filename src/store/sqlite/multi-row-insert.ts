import type { Database, Statement } from "better-sqlite3";

/**
 * Rows per statement at most, a power of two: 64 rows of 19 columns stay far below SQLite's
 * limit of 32,766 parameters.
 */
const MAX_ROWS = 64;

/**
 * An INSERT of any number of rows, run as few multi-row statements (`VALUES (…), (…), …`) of
 * power-of-two sizes, each prepared once. Per statement, better-sqlite3 costs about what
 * SQLite's own work for a small row does, so a batch's rows in one statement cost less than a
 * statement each. Rows are pushed into statement-sized arrays as they come (`nextRow`), so a
 * long batch is never copied into pieces.
 *
 * @example
 * ```ts
 * const insert = new MultiRowInsert(db, "INSERT INTO t (a, b) VALUES", 2);
 * insert.nextRow().push(1, "x");
 * insert.nextRow().push(2, "y");
 * insert.flush(); // two rows, one statement
 * ```
 */
export class MultiRowInsert {
  private readonly statements: (Statement | undefined)[] = [];
  private readonly full: unknown[][] = [];
  private current: unknown[] = [];

  /** `head` is the statement up to VALUES; `tail` follows the rows (an ON CONFLICT clause). */
  constructor(
    private readonly db: Database,
    private readonly head: string,
    private readonly columns: number,
    private readonly tail = "",
  ) {}

  /** The array to push the next row's values into: exactly `columns` of them. */
  nextRow(): unknown[] {
    if (this.current.length === MAX_ROWS * this.columns) {
      this.full.push(this.current);
      this.current = [];
    }
    return this.current;
  }

  /** Drop rows pushed and not flushed (what a failed write left behind). */
  discard(): void {
    this.full.length = 0;
    this.current = [];
  }

  /** Insert the rows pushed since the last flush, in order; nothing is kept if one fails. */
  flush(): void {
    const full = this.full.splice(0);
    const rest = this.current;
    this.current = [];
    for (const values of full) this.statement(MAX_ROWS).run(values);
    const rows = rest.length / this.columns;
    if (!Number.isInteger(rows)) {
      throw new RangeError(`${rest.length} values do not make rows of ${this.columns}`);
    }
    // The rest in statements of 32, 16, ... 1 rows: at most seven prepared per table.
    let first = 0;
    while (first < rows) {
      let count = MAX_ROWS;
      while (count > rows - first) count >>= 1;
      const start = first * this.columns;
      const values = count === rows ? rest : rest.slice(start, start + count * this.columns);
      this.statement(count).run(values);
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
