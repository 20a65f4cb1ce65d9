import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { leanTrailStore, readLeanTrail } from "../../bench/lean-trail.js";
import { docketSystem } from "../../bench/loop-systems.js";
import { workloadModel, workloadScript } from "../../bench/loop-workload.js";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import { callEventOf } from "../store/support/call-events.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-lean-"));
  dirs.push(dir);
  return dir;
};

/** Every event of the lean file, in chain order. */
function leanEvents(path: string): { type: string; callId: string; writes?: boolean }[] {
  const db = openNodeSqlite(path);
  try {
    const bodies = db.prepare("SELECT body FROM trail ORDER BY seq").all() as { body: string }[];
    return bodies.flatMap((row) => JSON.parse(row.body));
  } finally {
    db.close();
  }
}

/** A call's first event, in session `sessionId`. */
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

/** A call's closing event (ok), in session `sessionId`. */
const finished = (sessionId: string, callId: string) => callEventOf(sessionId, callId, "finished");

/** Every row of one table of the lean file. */
function leanRows(path: string, table: "calls" | "messages"): Record<string, unknown>[] {
  const db = openNodeSqlite(path);
  try {
    return db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

describe("bench/lean-trail: the leanest store of the trail's promises (ADR 0100)", () => {
  it("keeps a read run's every event in one chained row a turn, a calls row a call and the transcript", async () => {
    const dir = tempDir();
    const docket = await docketSystem({ store: "file", dir, lean: true });
    await docket.run(workloadModel(workloadScript(3)).model, 3);
    await docket.close();
    const path = join(dir, "lean.db");
    expect(readLeanTrail(path)).toEqual({ links: 3, calls: 30, messages: 6, chained: true });
    const events = leanEvents(path);
    expect(events).toHaveLength(120);
    expect(events.slice(0, 4).map((event) => event.type)).toEqual([
      "requested",
      "decided",
      "started",
      "finished",
    ]);
    const calls = leanRows(path, "calls");
    expect(calls[0]).toMatchObject({ tool: "noop", state: "finished", status: "ok" });
    expect(calls.every((row) => typeof row.args_hash === "string" && row.owner !== "")).toBe(true);
    expect(JSON.parse(calls[0]?.result as string)).toMatchObject({ status: "ok" });
    expect(leanRows(path, "messages").map((row) => JSON.parse(row.body as string).role)).toEqual([
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "tool",
    ]);
    // docket's own file keeps the session and none of the calls.
    const store = await openStore(`sqlite:${join(dir, "docket.db")}`, { readOnly: true });
    try {
      const [session] = await store.listSessions();
      expect(await store.listEvents({ sessionId: session?.id as string })).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("commits a write's intent before its handler runs, and its outcome before the turn's results go on", async () => {
    const dir = tempDir();
    const path = join(dir, "lean.db");
    const seen: number[] = [];
    const outcomes: number[] = [];
    const started: number[] = [];
    const docket = await docketSystem({
      store: "file",
      dir,
      lean: true,
      writes: true,
      handler: ({ n }) => {
        // Read from another connection: only what was committed.
        const events = leanEvents(path);
        seen.push(events.filter((e) => e.type === "started" && e.writes).length);
        outcomes.push(events.filter((e) => e.type === "finished").length);
        started.push(leanRows(path, "calls").filter((row) => row.state === "started").length);
        return n;
      },
    });
    await docket.run(workloadModel(workloadScript(2)).model, 2);
    await docket.close();
    // The handler of the k-th call saw k intents committed, its own among them, and its calls row.
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(started).toEqual(Array.from({ length: 20 }, () => 1));
    // Each outcome rides with the next intent; the turn's last one with the turn's flush.
    expect(outcomes).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Ten intents a turn, each its own commit, and the turn's last outcome with its messages.
    expect(readLeanTrail(path)).toEqual({ links: 22, calls: 20, messages: 4, chained: true });
    expect(leanEvents(path).filter((e) => e.type === "finished")).toHaveLength(20);
  });

  it("keeps the arguments the checkpoint decided on, whatever the handler does with them", async () => {
    const dir = tempDir();
    const docket = await docketSystem({
      store: "file",
      dir,
      lean: true,
      handler: (args) => {
        (args as { n: number }).n = -1;
        return 0;
      },
    });
    await docket.run(workloadModel(workloadScript(1)).model, 1);
    await docket.close();
    const decided = leanEvents(join(dir, "lean.db")).filter((e) => e.type === "decided");
    expect(decided).toHaveLength(10);
    for (const event of decided) expect((event as { args?: { n: number } }).args?.n).not.toBe(-1);
  });

  it("answers a claim of an id its file already holds as seen, and keeps the chain across a reopen", async () => {
    const path = join(tempDir(), "lean.db");
    const first = leanTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    const { id } = await first.createSession({ principal: "p", configHash: "" });
    expect(await first.claimCall(id, "c1", { tool: "noop", argsHash: "h" })).toEqual({
      status: "claimed",
    });
    await first.emit(requested(id, "c1"));
    await first.emit(finished(id, "c1"), { defer: true });
    expect(first.awaitsCommit?.(id, "c1")).toBe(true);
    await first.flush();
    expect(first.awaitsCommit?.(id, "c1")).toBe(false);
    await first.close();
    const again = leanTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    await again.prefetchCalls?.(id, ["c1", "c2"]);
    expect(await again.claimCall(id, "c1", { tool: "noop" })).toMatchObject({
      status: "seen",
      state: "finished",
      argsHash: "h",
    });
    await again.emit(requested(id, "c2"));
    await again.close();
    expect(readLeanTrail(path)).toEqual({ links: 2, calls: 1, messages: 0, chained: true });
  });

  it("reads the chain's head again when another writer moved it", async () => {
    const path = join(tempDir(), "lean.db");
    const one = leanTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    const two = leanTrailStore(await openStore(":memory:"), { path, walFill: 0 });
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
    expect(readLeanTrail(path)).toEqual({ links: 4, calls: 0, messages: 0, chained: true });
  });

  it("finds an edited link: the chain is checked, not assumed", async () => {
    const dir = tempDir();
    const path = join(dir, "lean.db");
    const store = leanTrailStore(await openStore(":memory:"), { path });
    const { id } = await store.createSession({ principal: "p", configHash: "" });
    for (const callId of ["c1", "c2"]) {
      await store.emit(requested(id, callId));
      await store.flush();
    }
    await store.close();
    expect(readLeanTrail(path).chained).toBe(true);
    const db = openNodeSqlite(path);
    db.prepare("UPDATE trail SET body = replace(body, 'c1', 'c9') WHERE seq = 1").run();
    db.close();
    expect(readLeanTrail(path)).toMatchObject({ links: 2, chained: false });
  });

  it("keeps what waited when a commit fails, and writes it with the next", async () => {
    const path = join(tempDir(), "lean.db");
    const store = leanTrailStore(await openStore(":memory:"), { path, walFill: 0 });
    const { id } = await store.createSession({ principal: "p", configHash: "" });
    await store.claimCall(id, "r1", { tool: "noop" });
    await store.emit(finished(id, "r1"), { defer: true });
    const other = openNodeSqlite(path);
    other.exec(
      "CREATE TABLE fail_next (n INTEGER); INSERT INTO fail_next VALUES (1); CREATE TRIGGER fail BEFORE INSERT ON trail WHEN (SELECT count(*) FROM fail_next) > 0 BEGIN SELECT RAISE(ABORT, 'injected'); END",
    );
    await expect(store.flush()).rejects.toThrow(/injected/);
    expect(store.awaitsCommit?.(id, "r1")).toBe(true);
    other.exec("DELETE FROM fail_next");
    other.close();
    await store.flush();
    expect(store.awaitsCommit?.(id, "r1")).toBe(false);
    await store.close();
    expect(readLeanTrail(path)).toEqual({ links: 1, calls: 1, messages: 0, chained: true });
  });
});
