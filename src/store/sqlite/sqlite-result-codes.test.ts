import { describe, expect, it } from "vitest";
import { openNodeSqlite } from "./node-sqlite-database.js";
import { sqliteCodeFromMessage, sqliteCodeName } from "./sqlite-result-codes.js";

describe("SQLite's result codes", () => {
  it("names primary and extended codes as better-sqlite3 did", () => {
    expect(sqliteCodeName(5)).toBe("SQLITE_BUSY");
    expect(sqliteCodeName(1555)).toBe("SQLITE_CONSTRAINT_PRIMARYKEY");
    expect(sqliteCodeName(2067)).toBe("SQLITE_CONSTRAINT_UNIQUE");
    expect(sqliteCodeName(1544)).toBe("SQLITE_READONLY_DIRECTORY");
    expect(sqliteCodeName(26)).toBe("SQLITE_NOTADB");
    expect(sqliteCodeName(10 | (33 << 8))).toBe("SQLITE_IOERR_CORRUPTFS");
    expect(sqliteCodeName(99)).toBe("SQLITE_UNKNOWN_99");
  });

  it("reads the code from SQLite's text where no number is given", () => {
    expect(sqliteCodeFromMessage("UNIQUE constraint failed: t.a")).toBe("SQLITE_CONSTRAINT_UNIQUE");
    expect(sqliteCodeFromMessage("database is locked")).toBe("SQLITE_BUSY");
    expect(sqliteCodeFromMessage("something else")).toBeUndefined();
  });

  it("gives node:sqlite's errors their code names", () => {
    const db = openNodeSqlite(":memory:");
    db.exec("CREATE TABLE t (id TEXT PRIMARY KEY) WITHOUT ROWID; INSERT INTO t VALUES ('a')");
    const insert = db.prepare("INSERT INTO t VALUES (?)");
    expect(() => insert.run("a")).toThrow(
      expect.objectContaining({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" }),
    );
    expect(() => db.exec("SELECT * FROM missing")).toThrow(
      expect.objectContaining({ code: "SQLITE_ERROR" }),
    );
    db.close();
  });
});
