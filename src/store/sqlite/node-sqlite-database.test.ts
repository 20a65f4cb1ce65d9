import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openNodeSqlite } from "./node-sqlite-database.js";
import type { Database } from "./sqlite-driver.js";

let dir: string | undefined;
const opened: Database[] = [];
afterEach(async () => {
  for (const db of opened.splice(0)) db.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function twoConnections(): Promise<[Database, Database]> {
  dir = await mkdtemp(join(tmpdir(), "docket-iterate-"));
  const path = join(dir, "f.db");
  const [a, b] = [
    openNodeSqlite(path, { timeoutMs: 200 }),
    openNodeSqlite(path, { timeoutMs: 200 }),
  ];
  opened.push(a, b);
  a.exec("PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER)");
  for (let n = 0; n < 10; n += 1) a.prepare("INSERT INTO t VALUES (?)").run(n);
  return [a, b];
}

describe("a node:sqlite statement's iterate", () => {
  it("ends its read when the loop over it stops early: the connection sees later commits and can write", async () => {
    const [a, b] = await twoConnections();
    const statement = a.prepare("SELECT n FROM t ORDER BY n");
    for (const row of statement.iterate()) {
      if ((row as { n: number }).n === 2) break;
    }
    // Another connection commits after that loop.
    b.prepare("INSERT INTO t VALUES (?)").run(100);
    // A read left open would keep its snapshot: 10 rows, and a write would be refused (busy).
    expect(a.prepare("SELECT count(*) AS c FROM t").get()).toEqual({ c: 11 });
    expect(() => a.prepare("INSERT INTO t VALUES (?)").run(101)).not.toThrow();
  });

  it("ends its read when the loop over it throws", async () => {
    const [a, b] = await twoConnections();
    expect(() => {
      for (const row of a.prepare("SELECT n FROM t").iterate()) {
        if ((row as { n: number }).n === 1) throw new Error("the consumer failed");
      }
    }).toThrow("the consumer failed");
    b.prepare("INSERT INTO t VALUES (?)").run(100);
    expect(a.prepare("SELECT count(*) AS c FROM t").get()).toEqual({ c: 11 });
  });
});
