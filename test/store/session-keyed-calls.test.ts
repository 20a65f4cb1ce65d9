import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { LATEST_SCHEMA_VERSION } from "../../src/store/migrations/migration.js";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { callEvents } from "./support/call-events.js";
import { toOlderCallsLayout } from "./support/older-calls-layout.js";
import { twoSessions } from "./support/two-sessions.js";

const dir = mkdtempSync(join(tmpdir(), "docket-session-keyed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
const echo = defineTool({
  name: "echo",
  description: "Echo a word.",
  input: z.object({ word: z.string() }),
  writes: false,
  handler: ({ word }) => {
    runs += 1;
    return word;
  },
});

const table = (path: string, sql: string): unknown[] => {
  const db = openNodeSqlite(path, { readOnly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
};

/** What the Store API says about a store's calls: the same before and after a migration. */
async function callsSeen(store: Store, sessions: string[]) {
  return {
    all: await store.listCalls({}),
    bySession: await Promise.all(sessions.map((sessionId) => store.listCalls({ sessionId }))),
    byId: await store.listCalls({ callId: "c1" }),
    one: await store.listCalls({ sessionId: sessions[1], callId: "w1" }),
    counts: [...(await store.countCalls([...sessions, "ses_none"])).entries()].sort(),
    events: (await store.listEvents({ callId: "c2" })).length,
    verified: await store.verifyChain(),
  };
}

describe("SQLite calls keyed by a number per session (schema 10, ADR 0018)", () => {
  it("a new store keys calls by (session_no, call_id) and keeps the session id in the row", async () => {
    const path = join(dir, "new.db");
    const store = await openStore(`sqlite:${path}`);
    const sessions = await twoSessions(store, echo, (w, principal) => `${w}-${principal}`);
    await store.close();
    expect(table(path, "SELECT id FROM session_keys ORDER BY no")).toEqual(
      sessions.map((id) => ({ id })),
    );
    const [info] = table(path, "SELECT sql FROM sqlite_master WHERE name = 'calls'") as {
      sql: string;
    }[];
    expect(info?.sql).toMatch(/PRIMARY KEY \(session_no, call_id\)/);
    // Raw SQL by session id still reads a session's calls.
    expect(
      table(path, `SELECT call_id FROM calls WHERE session_id = '${sessions[0]}' ORDER BY call_id`),
    ).toEqual([{ call_id: "c0" }, { call_id: "c1" }, { call_id: "c2" }, { call_id: "w1" }]);
  });

  it("answers a reused call id from its own session's record, never another's", async () => {
    const store = await openStore(`sqlite:${join(dir, "reuse.db")}`);
    try {
      const [alice, bob] = await twoSessions(store, echo, (w, principal) => `${w}-${principal}`);
      const before = runs;
      const checkpoint = createCheckpoint({ tools: [echo], store });
      const again = await checkpoint.dispatchBatch(
        [{ id: "c1", name: "echo", arguments: '{"word":"b-bob"}' }],
        { sessionId: bob as string },
      );
      expect(runs).toBe(before);
      expect(again[0]).toMatchObject({ status: "ok", output: "b-bob" });
      // The same id with alice's arguments in bob's session is not bob's call: refused, not run.
      const other = await checkpoint.dispatchBatch(
        [{ id: "c1", name: "echo", arguments: '{"word":"b-alice"}' }],
        { sessionId: bob as string },
      );
      expect(runs).toBe(before);
      expect(other[0]?.status).not.toBe("ok");
      expect(await store.claimCall(alice as string, "c1", { tool: "echo" })).toMatchObject({
        status: "seen",
      });
      expect(await store.claimCall(alice as string, "fresh", { tool: "echo" })).toEqual({
        status: "claimed",
      });
      const claimed = (sessionId: string | undefined) =>
        store.listCalls({ sessionId, status: "claimed" });
      expect((await claimed(alice)).map((call) => call.callId)).toEqual(["fresh"]);
      expect(await claimed(bob)).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("gives a session's number again when the transaction that gave it rolled back", async () => {
    const path = join(dir, "rollback.db");
    const store = await openStore(`sqlite:${path}`);
    try {
      await store.emit({
        callId: "c1",
        tool: "lookup",
        sessionId: "s1",
        at: 1_700_000_000_000,
        type: "requested",
        principal: "agent",
        rawArguments: "{}",
        rawBytes: 2,
      });
      await store.claimCall("s1", "c1", { writes: false, defer: true });
      // The queued claim is written in this batch's transaction, which fails and rolls back:
      // the number it gave s1 is gone with it.
      await expect(
        store.saveBatch("ses_missing", { role: "assistant", content: "a" }, []),
      ).rejects.toMatchObject({ code: "unknown_session" });
      expect(table(path, "SELECT no, id FROM session_keys")).toEqual([]);
      // Another session saved now (the queue is written first, in the same transaction) and s1
      // each get a number of their own.
      expect(await store.claimCall("s2", "c1", { tool: "lookup" })).toEqual({ status: "claimed" });
      await store.flush();
      expect(table(path, "SELECT id FROM session_keys ORDER BY id")).toEqual([
        { id: "s1" },
        { id: "s2" },
      ]);
      const calls = await store.listCalls({});
      expect(calls.map((call) => [call.sessionId, call.callId, call.state]).sort()).toEqual([
        ["s1", "c1", "claimed"],
        ["s2", "c1", "claimed"],
      ]);
      expect(
        table(
          path,
          "SELECT k.id, c.session_id FROM calls c JOIN session_keys k ON k.no = c.session_no",
        ),
      ).toEqual(
        expect.arrayContaining([
          { id: "s1", session_id: "s1" },
          { id: "s2", session_id: "s2" },
        ]),
      );
    } finally {
      await store.close();
    }
  });

  it("reads a version-9 file as it stands read-only, then migrates it keeping every row", async () => {
    const path = join(dir, "v9.db");
    const store = await openStore(`sqlite:${path}`);
    const sessions = await twoSessions(store, echo, (w, principal) => `${w}-${principal}`);
    const expected = await callsSeen(store, sessions);
    await store.close();
    toOlderCallsLayout(path, 9);

    const reader = await openStore(`sqlite:${path}`, { readOnly: true });
    try {
      expect(await callsSeen(reader, sessions)).toEqual(expected);
    } finally {
      await reader.close();
    }
    expect(table(path, "SELECT version FROM schema_version")).toEqual([{ version: 9 }]);
    expect(table(path, "SELECT name FROM sqlite_master WHERE name = 'session_keys'")).toEqual([]);

    const migrated = await openStore(`sqlite:${path}`);
    try {
      expect(await migrated.schemaVersion()).toBe(LATEST_SCHEMA_VERSION);
      expect(await callsSeen(migrated, sessions)).toEqual(expected);
      // Writing goes on under the new key, in the same sessions.
      await migrated.emitMany(callEvents({ sessionId: sessions[0], callId: "w2" }));
      expect((await migrated.listCalls({ sessionId: sessions[0] })).map((c) => c.callId)).toEqual([
        "w2",
        ...(expected.bySession[0] ?? []).map((c) => c.callId),
      ]);
      expect(await migrated.verifyChain()).toMatchObject({ ok: true });
    } finally {
      await migrated.close();
    }
  });

  it("records version 10, which dockets of schema 9 and older refuse (store_too_new)", () => {
    const path = join(dir, "new.db");
    expect(table(path, "SELECT version FROM schema_version")).toEqual([
      { version: LATEST_SCHEMA_VERSION },
    ]);
    expect(LATEST_SCHEMA_VERSION).toBeGreaterThanOrEqual(10);
  });

  it("plans every lookup by session through the primary key, never a scan of calls", () => {
    const db = openNodeSqlite(join(dir, "new.db"), { readOnly: true });
    try {
      const session = "(SELECT no FROM session_keys WHERE id = 'x')";
      for (const sql of [
        `SELECT * FROM calls WHERE session_no = ${session} AND call_id = 'c'`,
        `SELECT * FROM calls WHERE session_no = ${session} AND call_id IN ('a', 'b')`,
        "SELECT session_id FROM calls WHERE session_no IN (SELECT no FROM session_keys) AND call_id = 'c'",
        `SELECT * FROM calls WHERE session_no = ${session} ORDER BY rowid DESC`,
        `SELECT k.id, COUNT(*) FROM session_keys k JOIN calls c ON c.session_no = k.no
           WHERE k.id IN ('x', 'y') GROUP BY k.no`,
      ]) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map(
          (row) => row.detail,
        );
        expect(plan.some((step) => /^SCAN c(alls)?\b/.test(step))).toBe(false);
        expect(plan.some((step) => /SEARCH (calls|c) USING (COVERING )?INDEX/.test(step))).toBe(
          true,
        );
      }
    } finally {
      db.close();
    }
  });
});
