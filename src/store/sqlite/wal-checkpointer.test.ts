import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openNodeSqlite } from "./node-sqlite-database.js";
import { WalCheckpointer } from "./wal-checkpointer.js";

const root = mkdtempSync(join(tmpdir(), "docket-wal-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function openFile(name: string) {
  const path = join(root, name);
  const db = openNodeSqlite(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE t (x TEXT)");
  const insert = db.prepare("INSERT INTO t VALUES (?)");
  return { path, db, commit: (bytes: number) => insert.run("x".repeat(bytes)) };
}

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe("WalCheckpointer", () => {
  it("starts a worker once the WAL is big, which copies the WAL into the database off the main thread", async () => {
    const { path, db, commit } = openFile("big.db");
    const checkpointer = new WalCheckpointer(db, path, { intervalMs: 20, startAtBytes: 64 * 1024 });
    const before = statSync(path).size;
    for (let i = 0; i < 64; i += 1) {
      commit(4096);
      checkpointer.noteCommit();
    }
    expect(checkpointer.running).toBe(true);
    // The main connection's own checkpoint is now only a backstop far away.
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(20_000);
    expect(await until(() => statSync(path).size > before + 64 * 4096)).toBe(true);
    await checkpointer.close();
    expect(checkpointer.running).toBe(false);
    db.close();
    // The last connection closed: SQLite checkpointed and removed the WAL.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const reopened = openNodeSqlite(path, { readOnly: true });
    expect(reopened.prepare("SELECT count(*) AS n FROM t").get()).toEqual({ n: 64 });
    reopened.close();
  });

  it("with its defaults, leaves a WAL that SQLite's own checkpoint keeps resetting to SQLite", async () => {
    const { path, db, commit } = openFile("resetting.db");
    const checkpointer = new WalCheckpointer(db, path);
    // 2,000 pages: twice the WAL at which SQLite checkpoints by itself and starts the file over.
    for (let i = 0; i < 2000; i += 1) {
      commit(3000);
      checkpointer.noteCommit();
    }
    expect(checkpointer.running).toBe(false);
    expect(statSync(`${path}-wal`).size).toBeLessThan(4 * 1024 * 1024);
    await checkpointer.close();
    db.close();
  });

  it("with its defaults, starts when a reader keeps SQLite's own checkpoint from resetting the WAL", async () => {
    const { path, db, commit } = openFile("pinned.db");
    commit(10);
    const checkpointer = new WalCheckpointer(db, path);
    // Another connection in a read transaction (a console, a `docket sessions` in another
    // terminal): the WAL cannot start over while it holds its snapshot, so it grows.
    const reader = openNodeSqlite(path, { readOnly: true });
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) FROM t").get();
    for (let i = 0; i < 1600 && !checkpointer.running; i += 1) {
      commit(3000);
      checkpointer.noteCommit();
    }
    expect(checkpointer.running).toBe(true);
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(20_000);
    reader.exec("COMMIT");
    reader.close();
    await checkpointer.close();
    db.close();
  });

  it("never starts for a store whose WAL stays small", async () => {
    const { path, db, commit } = openFile("small.db");
    const checkpointer = new WalCheckpointer(db, path);
    for (let i = 0; i < 256; i += 1) {
      commit(10);
      checkpointer.noteCommit();
    }
    expect(checkpointer.running).toBe(false);
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    await checkpointer.close();
    db.close();
  });
});
