import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { logTrailStore } from "../../bench/log-trail.js";
import { docketSystem } from "../../bench/loop-systems.js";
import { workloadModel, workloadScript } from "../../bench/loop-workload.js";
import { readLogTrail } from "../../bench/read-log-trail.js";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import type { StoreEvent } from "../../src/store/store-event.js";
import { callEventOf } from "../store/support/call-events.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-log-"));
  dirs.push(dir);
  return dir;
};

interface Row {
  events: { type: string; writes?: boolean }[];
  calls: { callId: string; state: string; owner: string; argsHash?: string; result?: unknown }[];
  messages: { role: string }[];
}

/** Every row of the log file, in order, its body parsed. */
function logRows(path: string): Row[] {
  const db = openNodeSqlite(path);
  try {
    const rows = db.prepare("SELECT body FROM log ORDER BY seq").all() as { body: string }[];
    return rows.map((row) => JSON.parse(row.body) as Row);
  } finally {
    db.close();
  }
}

/** Every event of the log file, in chain order. */
const logEvents = (path: string) => logRows(path).flatMap((row) => row.events);

/** A write's intent, in session `sessionId`. */
const started = (sessionId: string, callId: string) => callEventOf(sessionId, callId, "started");

/** A call's closing event (ok), in session `sessionId`. */
const finished = (sessionId: string, callId: string) => callEventOf(sessionId, callId, "finished");

const requested = (sessionId: string, callId: string) => ({
  type: "requested" as const,
  at: 0,
  sessionId,
  callId,
  tool: "noop",
  principal: "p",
  rawArguments: "{}",
  rawBytes: 2,
});

describe("bench/log-trail: one row of one table a commit (ADR 0102)", () => {
  it("keeps a read turn's events, calls and messages in one chained row", async () => {
    const dir = tempDir();
    const docket = await docketSystem({ store: "file", dir, log: true });
    await docket.run(workloadModel(workloadScript(3)).model, 3);
    await docket.close();
    const path = join(dir, "log.db");
    expect(readLogTrail(path)).toEqual({
      rows: 3,
      events: 120,
      calls: 30,
      messages: 6,
      chained: true,
    });
    const [first] = logRows(path);
    expect(first?.events.slice(0, 4).map((event) => event.type)).toEqual([
      "requested",
      "decided",
      "started",
      "finished",
    ]);
    expect(first?.calls).toHaveLength(10);
    for (const call of first?.calls ?? []) {
      expect(call).toMatchObject({ state: "finished", owner: expect.any(String) });
      expect(typeof call.argsHash).toBe("string");
      expect(call.result).toMatchObject({ status: "ok" });
    }
  });

  it("commits a write's intent before its handler runs, and its outcome with the next intent", async () => {
    const dir = tempDir();
    const path = join(dir, "log.db");
    const intents: number[] = [];
    const outcomes: number[] = [];
    const started: number[] = [];
    const made: number[] = [];
    const docket = await docketSystem({
      store: "file",
      dir,
      log: true,
      writes: true,
      handler: ({ n }) => {
        // Read from another connection: only what was committed.
        const events = logEvents(path);
        intents.push(events.filter((e) => e.type === "started" && e.writes).length);
        outcomes.push(events.filter((e) => e.type === "finished").length);
        started.push(
          logRows(path).flatMap((row) => row.calls.filter((c) => c.state === "started")).length,
        );
        const db = openNodeSqlite(path);
        made.push((db.prepare("SELECT count(*) AS n FROM calls").get() as { n: number }).n);
        db.close();
        return n;
      },
    });
    await docket.run(workloadModel(workloadScript(2)).model, 2);
    await docket.close();
    expect(intents).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(outcomes).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // No claim's commit writes the ledger: the first turn's calls are in it from its end on.
    expect(made).toEqual(Array.from({ length: 20 }, (_, i) => (i < 10 ? 0 : 10)));
    expect(readLogTrail(path)).toEqual({
      rows: 22,
      events: 80,
      calls: 20,
      messages: 4,
      chained: true,
    });
    // The tables are made at each turn's end, not in a claim's commit.
    const db = openNodeSqlite(path);
    try {
      const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
      expect(count("SELECT count(*) AS n FROM links")).toBe(22);
      expect(count("SELECT count(*) AS n FROM calls WHERE state = 'finished'")).toBe(20);
      // Each names the row that holds its last entry.
      const named = db
        .prepare("SELECT c.call_id, l.body FROM calls c JOIN log l ON l.seq = c.seq")
        .all() as { call_id: string; body: string }[];
      expect(named).toHaveLength(20);
      for (const { call_id, body } of named) {
        const entry = (JSON.parse(body) as Row).calls.find((c) => c.callId === call_id);
        expect(entry?.state).toBe("finished");
      }
      const last = db.prepare("SELECT seq, hash FROM log ORDER BY seq DESC LIMIT 1").get();
      expect(db.prepare("SELECT seq, hash FROM heads").get()).toEqual(last);
      expect(count("SELECT seq AS n FROM made")).toBe(22);
    } finally {
      db.close();
    }
  });

  it("answers a claim of an id another connection committed as seen", async () => {
    const path = join(tempDir(), "log.db");
    const one = logTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    const two = logTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    const start: StoreEvent = {
      type: "started",
      at: 0,
      sessionId: "s",
      callId: "w1",
      tool: "noop",
      writes: true,
      timeoutMs: 1000,
    };
    expect(await one.claimCall("s", "w1", { tool: "noop", argsHash: "h", start })).toEqual({
      status: "claimed",
      started: true,
    });
    expect(await two.claimCall("s", "w1", { tool: "noop" })).toMatchObject({
      status: "seen",
      state: "started",
      argsHash: "h",
    });
    await one.close();
    await two.close();
  });

  it("chains each session across two writers, and an edited row is found", async () => {
    const path = join(tempDir(), "log.db");
    const one = logTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    const two = logTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    for (const [store, callId] of [
      [one, "a1"],
      [two, "b1"],
      [one, "a2"],
      [two, "b2"],
    ] as const) {
      await store.emit(requested("shared", callId));
      await store.flush();
    }
    await one.close();
    await two.close();
    expect(readLogTrail(path)).toMatchObject({ rows: 4, events: 4, chained: true });
    // Each writer made the other's rows as well as its own: the tables never go back.
    const made = openNodeSqlite(path);
    try {
      expect(made.prepare("SELECT seq FROM heads").get()).toEqual({ seq: 4 });
      expect(made.prepare("SELECT seq FROM made").get()).toEqual({ seq: 4 });
      expect(made.prepare("SELECT count(*) AS n FROM links").get()).toEqual({ n: 4 });
    } finally {
      made.close();
    }
    const db = openNodeSqlite(path);
    db.prepare("UPDATE log SET body = replace(body, 'a1', 'a9') WHERE seq = 1").run();
    db.close();
    expect(readLogTrail(path)).toMatchObject({ rows: 4, chained: false });
  });

  it("answers seen from under the write lock when its memory of the other writer is stale", async () => {
    const path = join(tempDir(), "log.db");
    const one = logTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    const two = logTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    // Two's read of r1 waits for its commit when w1 is claimed.
    await two.emit(finished("s", "r1"), { defer: true });
    expect(
      await one.claimCall("s", "w1", { tool: "noop", argsHash: "h", start: started("s", "w1") }),
    ).toEqual({ status: "claimed", started: true });
    expect(
      await two.claimCall("s", "w1", { tool: "noop", argsHash: "h", start: started("s", "w1") }),
    ).toMatchObject({ status: "seen", state: "started" });
    // The rest of two's commit went without the claim and its intent.
    expect(two.awaitsCommit?.("s", "r1")).toBe(false);
    await one.close();
    await two.close();
    const types = logRows(path).flatMap((row) => row.events.map((event) => event.type));
    expect(types.filter((type) => type === "started")).toHaveLength(1);
    expect(types.filter((type) => type === "finished")).toHaveLength(1);
    expect(readLogTrail(path).chained).toBe(true);
  });

  it("keeps what waited when a commit fails, and writes it with the next", async () => {
    const path = join(tempDir(), "log.db");
    const store = logTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    await store.emit(finished("s", "r1"), { defer: true });
    const other = openNodeSqlite(path);
    other.exec(
      "CREATE TABLE fail_next (n INTEGER); INSERT INTO fail_next VALUES (1); CREATE TRIGGER fail BEFORE INSERT ON log WHEN (SELECT count(*) FROM fail_next) > 0 BEGIN SELECT RAISE(ABORT, 'injected'); END",
    );
    await expect(store.flush()).rejects.toThrow(/injected/);
    expect(store.awaitsCommit?.("s", "r1")).toBe(true);
    other.exec("DELETE FROM fail_next");
    other.close();
    await store.flush();
    expect(store.awaitsCommit?.("s", "r1")).toBe(false);
    await store.close();
    expect(readLogTrail(path)).toMatchObject({ rows: 1, events: 1, calls: 1, chained: true });
  });

  it("stops at the commit after its file is removed", async () => {
    const dir = tempDir();
    const path = join(dir, "log.db");
    const store = logTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    await store.emit(requested("s", "c1"));
    await store.flush();
    rmSync(path);
    await store.emit(requested("s", "c2"));
    await expect(store.flush()).rejects.toThrow(/removed or replaced/);
    // And every later one.
    await store.emit(requested("s", "c3"));
    await expect(store.flush()).rejects.toThrow(/removed or replaced/);
  });
});
