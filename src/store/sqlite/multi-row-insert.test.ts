import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MultiRowInsert } from "./multi-row-insert.js";

describe("MultiRowInsert", () => {
  const table = () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE t (n INTEGER PRIMARY KEY, label TEXT)");
    return db;
  };

  it("inserts any number of rows in order, over several statements past 64 rows", () => {
    const db = table();
    const insert = new MultiRowInsert(db, "INSERT INTO t (n, label) VALUES", 2);
    for (const count of [0, 1, 63, 64, 65, 200]) {
      db.exec("DELETE FROM t");
      const values = Array.from({ length: count }, (_, i) => [i, `row ${i}`]).flat();
      insert.run(values);
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
    upsert.run([1, "a", 2, "b"]);
    upsert.run([2, "B", 3, "c"]);
    expect(db.prepare("SELECT label FROM t ORDER BY n").pluck().all()).toEqual(["a", "B", "c"]);
  });

  it("refuses values that do not make whole rows, writing nothing", () => {
    const db = table();
    const insert = new MultiRowInsert(db, "INSERT INTO t (n, label) VALUES", 2);
    expect(() => insert.run([1, "a", 2])).toThrow(RangeError);
    expect(db.prepare("SELECT count(*) FROM t").pluck().get()).toBe(0);
  });
});
