import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { countWalCommits } from "../../bench/wal-commits.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { countPostgresCommits } from "./support/postgres-commits.js";
import { eventsOfRows } from "./support/raw-sql.js";

const dirs: string[] = [];
const stores: Store[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function fileStore(): Promise<{ store: Store; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), "docket-write-commits-"));
  dirs.push(dir);
  const path = join(dir, "docket.db");
  const store = await openStore(`sqlite:${path}`);
  stores.push(store);
  return { store, path };
}

/** What another connection to the file sees now: the call's row and its event types. */
function seenFromOutside(path: string, callId: string): { state?: string; events: string[] } {
  const db = openNodeSqlite(path);
  try {
    const row = db.prepare("SELECT state FROM calls WHERE call_id = ?").get(callId) as
      | { state: string }
      | undefined;
    const rows = db.prepare("SELECT call_id, event FROM audit_events ORDER BY seq").all();
    return {
      ...(row ? { state: row.state } : {}),
      // A row may hold the events of several calls as one JSON array (ADRs 0086, 0101): its
      // call_id column is its last event's, so each event's own call id is read from its text.
      events: eventsOfRows(rows)
        .filter((event) => event.call_id === callId)
        .map((event) => event.type),
    };
  } finally {
    db.close();
  }
}

/** A writing tool whose handler is `run`. */
function writeTool(run: (n: number, callId: string) => number | Promise<number>) {
  return defineTool({
    name: "write_note",
    description: "Writes a note.",
    input: z.object({ n: z.number() }),
    writes: true,
    handler: ({ n }, ctx) => run(n, ctx.callId),
  });
}

describe("a write call's commits (SQLite file store)", () => {
  it("commits its claim and intent before the handler runs and its outcome with its calls row after: two commits, the outcome riding with the next write's claim", async () => {
    const { store, path } = await fileStore();
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const during: ReturnType<typeof seenFromOutside>[] = [];
    const earlier: ReturnType<typeof seenFromOutside>[] = [];
    const write = writeTool((n, callId) => {
      during.push(seenFromOutside(path, callId));
      if (callId === "w2") earlier.push(seenFromOutside(path, "w1"));
      return n;
    });
    const checkpoint = createCheckpoint({
      tools: [write],
      store,
      policy: () => ({ decision: "allow" }),
    });
    const before = countWalCommits(`${path}-wal`);
    const results = await checkpoint.dispatchBatch(
      [
        { id: "w1", name: "write_note", arguments: '{"n":1}' },
        { id: "w2", name: "write_note", arguments: '{"n":2}' },
      ],
      { sessionId: session.id },
    );
    expect(results.map((r) => r.status)).toEqual(["ok", "ok"]);
    // w1's claim and intent; w1's outcome with w2's claim and intent (ADR 0081); w2's outcome.
    expect(countWalCommits(`${path}-wal`) - before).toBe(3);
    // Durable before it ran, as another process would find it after a crash.
    expect(during[0]).toEqual({ state: "started", events: ["requested", "decided", "started"] });
    expect(during[1]).toEqual({ state: "started", events: ["requested", "decided", "started"] });
    // Before the next handler ran, the earlier write's outcome was on record.
    expect(earlier).toEqual([
      { state: "finished", events: ["requested", "decided", "started", "finished"] },
    ]);
    expect(seenFromOutside(path, "w1")).toEqual({
      state: "finished",
      events: ["requested", "decided", "started", "finished"],
    });
    expect((await store.verifyChain(session.id)).ok).toBe(true);
    const [record] = await store.listCalls({ sessionId: session.id, callId: "w2" });
    expect(record?.state).toBe("finished");
  });

  it("does not run a write whose id another store claimed in between, and loses none of the queued events", async () => {
    const { store, path } = await fileStore();
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const other = await openStore(`sqlite:${path}`);
    stores.push(other);
    let runs = 0;
    const write = writeTool((n) => {
      runs += 1;
      return n;
    });
    const checkpoint = createCheckpoint({
      tools: [write],
      store,
      policy: () => ({ decision: "allow" }),
    });
    // The other process holds the id (claimed, still running).
    expect(await other.claimCall(session.id, "dup", { tool: "write_note", writes: true })).toEqual({
      status: "claimed",
    });
    const [result] = await checkpoint.dispatchBatch(
      [{ id: "dup", name: "write_note", arguments: '{"n":1}' }],
      { sessionId: session.id },
    );
    expect(runs).toBe(0);
    expect(result?.status).toBe("refused");
    expect(result?.status === "refused" && result.reason).toBe("duplicate_call_id");
    // The request and decision were kept; no intent was written for a call that never ran.
    expect(seenFromOutside(path, "dup").events).toEqual(["requested", "decided", "refused"]);
    expect((await store.verifyChain(session.id)).ok).toBe(true);
  });
  it("tells a second sink every step, the intent included, and refuses a write it cannot tell", async () => {
    const { store, path } = await fileStore();
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const events = createMemoryEventSink();
    let runs = 0;
    const write = writeTool((n) => {
      runs += 1;
      return n;
    });
    const policy = () => ({ decision: "allow" as const });
    const checkpoint = createCheckpoint({ tools: [write], store, events, policy });
    const before = countWalCommits(`${path}-wal`);
    const [ok] = await checkpoint.dispatchBatch(
      [{ id: "w1", name: "write_note", arguments: '{"n":1}' }],
      { sessionId: session.id },
    );
    expect(ok?.status).toBe("ok");
    expect(countWalCommits(`${path}-wal`) - before).toBe(2);
    expect(events.forCall("w1").map((e) => e.type)).toEqual([
      "requested",
      "decided",
      "started",
      "finished",
    ]);
    // A second sink that fails on the intent stops the write before it runs.
    const failing = createCheckpoint({
      tools: [write],
      store,
      policy,
      events: {
        emit(event) {
          if (event.type === "started") throw new Error("sink down");
        },
      },
    });
    const [refused] = await failing.dispatchBatch(
      [{ id: "w2", name: "write_note", arguments: '{"n":2}' }],
      { sessionId: session.id },
    );
    expect(refused?.status === "refused" && refused.reason).toBe("audit_failed");
    expect(runs).toBe(1);
    const [record] = await store.listCalls({ sessionId: session.id, callId: "w2" });
    expect(record?.state).toBe("finished");
    expect((await store.verifyChain(session.id)).ok).toBe(true);
  });

  it("commits an earlier write's outcome before a read's handler runs (a read has no claim commit to carry it)", async () => {
    const { store, path } = await fileStore();
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const during: ReturnType<typeof seenFromOutside>[] = [];
    const read = defineTool({
      name: "read_note",
      description: "Reads a note.",
      input: z.object({}),
      writes: false,
      handler: () => {
        during.push(seenFromOutside(path, "w1"));
        return "read";
      },
    });
    const checkpoint = createCheckpoint({
      tools: [writeTool((n) => n), read],
      store,
      policy: () => ({ decision: "allow" }),
    });
    const results = await checkpoint.dispatchBatch(
      [
        { id: "w1", name: "write_note", arguments: '{"n":1}' },
        { id: "r2", name: "read_note", arguments: "{}" },
      ],
      { sessionId: session.id },
    );
    expect(results.map((r) => r.status)).toEqual(["ok", "ok"]);
    expect(during).toEqual([
      { state: "finished", events: ["requested", "decided", "started", "finished"] },
    ]);
  });

  it("after a failed flush, answers a write carried by a later claim ok even when its id came again", async () => {
    const { store, path } = await fileStore();
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const runs: string[] = [];
    const write = writeTool((n, callId) => {
      runs.push(callId);
      // w2's claim committed w1's outcome; w2's own outcome finds the file gone.
      if (callId === "w2")
        for (const suffix of ["", "-wal", "-shm"]) rmSync(`${path}${suffix}`, { force: true });
      return n;
    });
    const checkpoint = createCheckpoint({
      tools: [write],
      store,
      policy: () => ({ decision: "allow" }),
      onEventError: () => undefined,
    });
    const results = await checkpoint.dispatchBatch(
      [
        { id: "w1", name: "write_note", arguments: '{"n":1}' },
        { id: "w2", name: "write_note", arguments: '{"n":2}' },
        // The same id again: its refusal is queued under w1 (not an outcome of w1).
        { id: "w1", name: "write_note", arguments: '{"n":1}' },
      ],
      { sessionId: session.id },
    );
    expect(runs).toEqual(["w1", "w2"]);
    expect(results.map((r) => `${r.callId} ${r.status} ${r.reason ?? ""}`)).toEqual([
      "w1 ok ",
      "w2 failed interrupted",
      "w1 refused duplicate_call_id",
    ]);
    await store.close().catch(() => undefined);
  });
});

describe.skipIf(skipPostgres)("a write call's claim and intent (PostgreSQL)", () => {
  afterAll(dropTestSchemas);

  it("commits them together, and does not run a write whose id another store holds", async () => {
    const url = freshPostgresUrl();
    const store = await openStore(url);
    stores.push(store);
    const other = await openStore(url);
    stores.push(other);
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const ran: string[] = [];
    // Inside the handler: the intent is already visible to another store.
    const seenWhileRunning: string[][] = [];
    const write = writeTool(async (n, callId) => {
      ran.push(callId);
      const events = await other.listEvents({ sessionId: session.id, callId });
      seenWhileRunning.push(events.map((e) => e.type));
      return n;
    });
    const checkpoint = createCheckpoint({
      tools: [write],
      store,
      policy: () => ({ decision: "allow" }),
    });
    await other.claimCall(session.id, "held", { tool: "write_note", writes: true });
    const results = await checkpoint.dispatchBatch(
      [
        { id: "w1", name: "write_note", arguments: '{"n":1}' },
        { id: "held", name: "write_note", arguments: '{"n":2}' },
      ],
      { sessionId: session.id },
    );
    expect(results.map((r) => r.status)).toEqual(["ok", "refused"]);
    expect(ran).toEqual(["w1"]);
    expect(seenWhileRunning).toEqual([["requested", "decided", "started"]]);
    const trail: string[][] = [];
    for (const callId of ["w1", "held"]) {
      trail.push((await other.listEvents({ sessionId: session.id, callId })).map((e) => e.type));
    }
    expect(trail).toEqual([
      ["requested", "decided", "started", "finished"],
      ["requested", "decided", "refused"],
    ]);
    const [held] = await other.listCalls({ sessionId: session.id, callId: "held" });
    expect(held?.state).toBe("claimed");
    expect((await store.verifyChain(session.id)).ok).toBe(true);
  });

  // ADR 0105: the queued steps, the claim and the intent in one commit, the outcome in another.
  // Counted on this process's own connections (the store is unsigned: no attestation commits).
  it("commits a write dispatched alone twice, and a batch of writes once a write and once more", async () => {
    const store = await openStore(freshPostgresUrl());
    stores.push(store);
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const checkpoint = createCheckpoint({
      tools: [writeTool((n) => n)],
      store,
      policy: () => ({ decision: "allow" }),
    });
    const call = (id: string) => ({ id, name: "write_note", arguments: '{"n":1}' });
    const ctx = { sessionId: session.id };
    const alone = countPostgresCommits();
    let result: Awaited<ReturnType<typeof checkpoint.dispatch>>;
    try {
      result = await checkpoint.dispatch(call("w1"), ctx);
    } finally {
      alone.stop();
    }
    expect(result.status).toBe("ok");
    expect(alone.commits(), alone.queries().join("\n---\n")).toBe(2);
    const batch = countPostgresCommits();
    let results: Awaited<ReturnType<typeof checkpoint.dispatchBatch>>;
    try {
      results = await checkpoint.dispatchBatch([call("b1"), call("b2"), call("b3")], ctx);
    } finally {
      batch.stop();
    }
    expect(results.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    // Each claim carries the earlier write's outcome (ADR 0081); the batch's flush the last one.
    expect(batch.commits(), batch.queries().join("\n---\n")).toBe(4);
    const trail = await store.listEvents({ sessionId: session.id });
    expect(trail.map((e) => `${e.callId} ${e.type}`)).toEqual(
      ["w1", "b1", "b2", "b3"].flatMap((id) =>
        ["requested", "decided", "started", "finished"].map((type) => `${id} ${type}`),
      ),
    );
    expect((await store.verifyChain(session.id)).ok).toBe(true);
  });
});
