import { describe, expect, it } from "vitest";
import { MultiRowInsert } from "./multi-row-insert.js";
import { openNodeSqlite } from "./node-sqlite-database.js";

describe("MultiRowInsert", () => {
  const table = () => {
    const db = openNodeSqlite(":memory:");
    db.exec("CREATE TABLE t (n INTEGER PRIMARY KEY, label TEXT)");
    return db;
  };
  const push = (insert: MultiRowInsert, rows: [number, string][]) => {
    for (const row of rows) insert.nextRow().push(...row);
  };

  it("inserts any number of rows in order, over several statements past 64 rows", () => {
    const db = table();
    const insert = new MultiRowInsert(db, "INSERT INTO t (n, label) VALUES", 2);
    for (const count of [0, 1, 63, 64, 65, 200]) {
      db.exec("DELETE FROM t");
      push(
        insert,
        Array.from({ length: count }, (_, i) => [i, `row ${i}`]),
      );
      insert.flush();
      const rows = db.prepare("SELECT n, label FROM t ORDER BY rowid").all();
      expect(rows).toEqual(Array.from({ length: count }, (_, i) => ({ n: i, label: `row ${i}` })));
    }
  });

  it("applies its tail to every row (an upsert)", () => {
    const db = table();
    const upsert = new MultiRowInsert(
      db,
      "INSERT INTO t (n, label) VALUES",
      2,
      "ON CONFLICT (n) DO UPDATE SET label = excluded.label",
    );
    push(upsert, [
      [1, "a"],
      [2, "b"],
    ]);
    upsert.flush();
    push(upsert, [
      [2, "B"],
      [3, "c"],
    ]);
    upsert.flush();
    expect(db.prepare("SELECT label FROM t ORDER BY n").pluck().all()).toEqual(["a", "B", "c"]);
  });

  it("forgets what a failed flush or a discard left, and refuses partial rows", () => {
    const db = table();
    const insert = new MultiRowInsert(db, "INSERT INTO t (n, label) VALUES", 2);
    push(insert, [
      [1, "a"],
      [1, "duplicate"],
    ]);
    expect(() => insert.flush()).toThrow(/UNIQUE/);
    push(insert, [[5, "e"]]);
    insert.discard();
    push(insert, [[2, "b"]]);
    insert.flush();
    insert.nextRow().push(3);
    expect(() => insert.flush()).toThrow(RangeError);
    insert.flush();
    expect(db.prepare("SELECT n FROM t ORDER BY n").pluck().all()).toEqual([2]);
  });
});
