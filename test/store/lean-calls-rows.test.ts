import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LATEST_SCHEMA_VERSION } from "../../src/store/migrations/migration.js";
import { openStore } from "../../src/store/open-store.js";
import { SESSIONS_WITH_CALLS } from "../../src/store/sqlite/call-keys.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import { callEvents } from "./support/call-events.js";
import { toOlderCallsLayout } from "./support/older-calls-layout.js";

const SESSIONS_OF_CALL = `SELECT session_id FROM calls WHERE session_id IN (${SESSIONS_WITH_CALLS}) AND call_id = ?`;

const dir = mkdtempSync(join(tmpdir(), "docket-lean-calls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const indexes = (path: string): string[] => {
  const db = openNodeSqlite(path, { readOnly: true });
  try {
    return db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'calls'")
      .pluck()
      .all() as string[];
  } finally {
    db.close();
  }
};

describe("SQLite calls rows from version 9 (ADR 0018)", () => {
  it("a new store has no index on call_id alone", async () => {
    const path = join(dir, "new.db");
    const store = await openStore(`sqlite:${path}`);
    await store.close();
    expect(indexes(path)).not.toContain("calls_by_call");
    expect(indexes(path)).toContain("sqlite_autoindex_calls_1");
  });

  it("a version-8 store is migrated: the index goes, its rows stay and are found by call id", async () => {
    const path = join(dir, "v8.db");
    const store = await openStore(`sqlite:${path}`);
    await store.emitMany(callEvents({ sessionId: "s1", callId: "shared", writes: false }));
    await store.emitMany(callEvents({ sessionId: "s2", callId: "shared" }));
    await store.close();
    // What a version-8 docket left: calls keyed by session id, the index, and its version.
    toOlderCallsLayout(path, 8);

    // Read-only first: read as it stands, nothing written.
    const reader = await openStore(`sqlite:${path}`, { readOnly: true });
    expect((await reader.listCalls({ callId: "shared" })).length).toBe(2);
    await reader.close();
    expect(indexes(path)).toContain("calls_by_call");

    const migrated = await openStore(`sqlite:${path}`);
    try {
      expect(await migrated.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
      expect(indexes(path)).not.toContain("calls_by_call");
      const calls = await migrated.listCalls({ callId: "shared" });
      expect(calls.map((c) => c.sessionId).sort()).toEqual(["s1", "s2"]);
      const events = await migrated.listEvents({ callId: "shared" });
      expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set(["s1", "s2"]));
      expect(events.every((e) => e.callId === "shared")).toBe(true);
      expect(await migrated.verifyChain()).toMatchObject({ ok: true });
    } finally {
      await migrated.close();
    }
  });

  it("finds one call id among many sessions, including a claim with no event yet", async () => {
    const path = join(dir, "many.db");
    const store = await openStore(`sqlite:${path}`);
    try {
      for (let s = 0; s < 40; s += 1) {
        await store.emitMany([
          ...callEvents({ sessionId: `ses_${s}`, callId: `c_${s}`, writes: false }),
          ...(s % 7 === 3 ? callEvents({ sessionId: `ses_${s}`, callId: "needle" }) : []),
        ]);
      }
      // A claim alone makes a calls row in a session with no chain yet.
      expect(await store.claimCall("ses_zz", "needle", { tool: "refund_order" })).toEqual({
        status: "claimed",
      });
      const calls = await store.listCalls({ callId: "needle" });
      expect(calls.map((c) => c.sessionId).sort()).toEqual([
        "ses_10",
        "ses_17",
        "ses_24",
        "ses_3",
        "ses_31",
        "ses_38",
        "ses_zz",
      ]);
      const events = await store.listEvents({ callId: "needle" });
      expect(new Set(events.map((e) => e.sessionId)).size).toBe(6);
      expect(await store.listCalls({ callId: "absent" })).toEqual([]);
      expect(await store.listEvents({ callId: "absent" })).toEqual([]);
      // A filter on one session is unchanged.
      expect((await store.listCalls({ callId: "needle", sessionId: "ses_3" })).length).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("looks a call id up through the primary key, never by reading every calls row", () => {
    const db = openNodeSqlite(":memory:");
    try {
      db.exec(`CREATE TABLE calls (session_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT,
        PRIMARY KEY (session_id, call_id))`);
      for (const sql of [
        `SELECT * FROM calls WHERE session_id IN (${SESSIONS_WITH_CALLS}) AND call_id = 'x'`,
        `SELECT 1 WHERE 's' IN (${SESSIONS_OF_CALL.replace("?", "'x'")})`,
      ]) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map(
          (row) => row.detail,
        );
        expect(plan.some((step) => /^SCAN calls/.test(step))).toBe(false);
        expect(plan.some((step) => /SEARCH calls USING (COVERING )?INDEX/.test(step))).toBe(true);
      }
    } finally {
      db.close();
    }
  });
});
