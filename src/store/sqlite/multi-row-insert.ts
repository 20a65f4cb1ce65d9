import type { Database, Statement } from "./sqlite-driver.js";

/** Rows per statement at most: 64 rows of 21 columns stay far below SQLite's 32,766 parameters. */
const MAX_ROWS = 64;

/**
 * An INSERT of any number of rows, run as few multi-row statements (`VALUES (…), (…), …`),
 * each prepared once. Per statement, the driver costs about what SQLite's own work for a
 * small row does, so a batch's rows in one statement cost less than a
 * statement each: up to 64 rows are one statement of exactly that many rows, more are 64 at a
 * time. Rows are pushed into statement-sized arrays as they come (`nextRow`), so a long batch
 * is never copied into pieces.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
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
    // Values as arguments, not as one array: the driver reads an array element by element
    // through V8's API, about 35% more per statement for a batch's calls rows (ADR 0018).
    for (const values of full) this.statement(MAX_ROWS).run(...values);
    const rows = rest.length / this.columns;
    if (!Number.isInteger(rows)) {
      throw new RangeError(`${rest.length} values do not make rows of ${this.columns}`);
    }
    // The rest in one statement of exactly that many rows: a batch of ten calls is one run per
    // table, not two (8 + 2) with a copy of the values for each. A statement is prepared once
    // per row count seen, at most 64 per table.
    if (rows > 0) this.statement(rows).run(...rest);
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
