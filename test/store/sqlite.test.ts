import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isDocketError } from "../../src/errors/docket-error.js";
import { LATEST_SCHEMA_VERSION } from "../../src/store/migrations/migration.js";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import { describeStoreContract } from "./store-contract.js";
import { callEvents } from "./support/call-events.js";

const root = mkdtempSync(join(tmpdir(), "docket-sqlite-"));
let count = 0;

afterAll(() => rmSync(root, { recursive: true, force: true }));

describeStoreContract("SQLite", () => {
  count += 1;
  return openStore(`sqlite:${join(root, `store-${count}`, "docket.db")}`);
});

describe("the SQLite file", () => {
  const fileHash = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

  it("is created with its folders on first use, in WAL mode", async () => {
    const path = join(root, "deep", "er", "docket.db");
    const store = await openStore(`sqlite:${path}?synchronous=FULL`);
    await store.emitMany(callEvents({ sessionId: "s", callId: "c" }));
    await store.close();
    const db = openNodeSqlite(path, { readOnly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("written by a newer docket is refused and left byte for byte as it was", async () => {
    const path = join(root, "newer", "docket.db");
    const store = await openStore(`sqlite:${path}`);
    await store.emitMany(callEvents({ sessionId: "s", callId: "c" }));
    await store.close();
    const db = openNodeSqlite(path);
    db.prepare("UPDATE schema_version SET version = ?").run(LATEST_SCHEMA_VERSION + 1);
    db.close();
    const before = fileHash(path);
    await expect(openStore(`sqlite:${path}`)).rejects.toSatisfy((e) =>
      isDocketError(e, "store_too_new"),
    );
    await expect(openStore(`sqlite:${path}`, { readOnly: true })).rejects.toSatisfy((e) =>
      isDocketError(e, "store_too_new"),
    );
    expect(fileHash(path)).toBe(before);
  });

  it("is not created by a read-only open", async () => {
    const path = join(root, "absent", "docket.db");
    await expect(openStore(`sqlite:${path}`, { readOnly: true })).rejects.toSatisfy((e) =>
      isDocketError(e, "store_not_found"),
    );
    expect(existsSync(join(root, "absent"))).toBe(false);
  });
});
