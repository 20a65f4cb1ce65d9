import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../../src/checkpoint/create-checkpoint.js";
import type { ToolResult } from "../../../src/checkpoint/tool-result.js";
import { isDocketError } from "../../../src/errors/docket-error.js";
import { defineTool } from "../../../src/tool/define-tool.js";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents } from "../support/call-events.js";
import { eventsOfRows, rawSql } from "../support/raw-sql.js";

const at = 1_700_000_000_000;

function okResult(callId: string): ToolResult {
  return {
    callId,
    name: "lookup",
    status: "ok",
    output: { found: true },
    message: "lookup succeeded.",
    durationMs: 1,
    rule: "test",
  };
}

/** The `requested` event of a read call in session s1. */
function requested(callId: string) {
  return {
    callId,
    tool: "lookup",
    sessionId: "s1",
    at,
    type: "requested",
    principal: "agent",
    rawArguments: "{}",
    rawBytes: 2,
  } as const;
}

/** Deferred claims, results and terminal events, queued batches: what the harness relies on. */
export function queuedWritesContract(fresh: OpenFreshStore): void {
  describe("queued writes", () => {
    it("writes a read's deferred claim, events and result together at the flush", async () => {
      const store = await fresh();
      const base = { callId: "c1", tool: "lookup", sessionId: "s1", at };
      await store.emit(requested("c1"));
      expect(
        await store.claimCall("s1", "c1", { tool: "lookup", writes: false, defer: true }),
      ).toEqual({
        status: "claimed",
      });
      await store.emit({ ...base, type: "started", writes: false, timeoutMs: 1000 });
      const finished = {
        ...base,
        type: "finished",
        status: "ok",
        reason: undefined,
        message: "lookup succeeded.",
        durationMs: 1,
        outputBytes: 14,
        output: '{"found":true}',
      } as const;
      await store.emit(finished, { defer: true });
      await store.recordCallResult("s1", "c1", okResult("c1"), undefined, { defer: true });
      await store.flush();
      const [events, calls] = await rawSql(store, [
        "SELECT call_id, event FROM audit_events WHERE call_id = 'c1' ORDER BY seq",
        "SELECT state, status, owner, result FROM calls WHERE call_id = 'c1'",
      ]);
      expect(eventsOfRows(events).map((row) => row.type)).toEqual([
        "requested",
        "started",
        "finished",
      ]);
      expect(calls).toEqual([
        expect.objectContaining({ state: "finished", status: "ok", owner: store.owner }),
      ]);
      expect(
        JSON.parse(String((calls?.[0] as { result: string } | undefined)?.result)),
      ).toMatchObject({
        output: { found: true },
      });
      expect(await store.verifyChain("s1")).toMatchObject({ ok: true, checked: 3 });
    });

    it("answers a deferred claim of an id on record as seen, with its outcome", async () => {
      const store = await fresh();
      await store.emitMany(callEvents({ sessionId: "s1", callId: "c1", writes: false }));
      const claim = await store.claimCall("s1", "c1", { writes: false, defer: true });
      expect(claim).toMatchObject({ status: "seen", outcome: { kind: "finished", status: "ok" } });
    });

    it("never claims an id twice, even while the first claim and its result are still queued", async () => {
      const store = await fresh();
      const first = await store.claimCall("s1", "c1", { writes: false, defer: true });
      await store.recordCallResult("s1", "c1", okResult("c1"), undefined, { defer: true });
      const second = await store.claimCall("s1", "c1", { writes: false, defer: true });
      expect(first).toEqual({ status: "claimed" });
      expect(second).toMatchObject({ status: "seen", state: "finished" });
    });

    it("answers claims the same after reading a batch's rows ahead", async () => {
      const store = await fresh();
      await store.emitMany(callEvents({ sessionId: "s1", callId: "c1", writes: false }));
      await store.prefetchCalls("s1", ["c1", "c2"]);
      expect(await store.claimCall("s1", "c1", { writes: false, defer: true })).toMatchObject({
        status: "seen",
        outcome: { kind: "finished" },
      });
      expect(await store.claimCall("s1", "c2", { writes: false, defer: true })).toEqual({
        status: "claimed",
      });
      expect(await store.claimCall("s1", "c2", { writes: false, defer: true })).toMatchObject({
        status: "seen",
        state: "claimed",
      });
    });

    it("reads ahead batches of any size, each recorded call found once", async () => {
      const store = await fresh();
      const ids = Array.from({ length: 150 }, (_, i) => `c${i}`);
      const recorded = ids.filter((_, i) => i % 3 === 0);
      for (const id of recorded) {
        await store.emitMany(callEvents({ sessionId: "s1", callId: id, writes: false }));
      }
      // Out of order, with a repeat, and over any single read's size.
      await store.prefetchCalls("s1", [...ids].reverse().concat(["c0"]));
      for (const id of ids) {
        const claim = await store.claimCall("s1", id, { writes: false, defer: true });
        expect(claim.status).toBe(recorded.includes(id) ? "seen" : "claimed");
      }
    });

    it("ignores `defer` on the claim of a write: it is committed before it resolves", async () => {
      const store = await fresh();
      expect(await store.claimCall("s1", "w1", { writes: true, defer: true })).toEqual({
        status: "claimed",
      });
      const [calls] = await rawSql(store, ["SELECT state FROM calls WHERE call_id = 'w1'"]);
      expect(calls).toEqual([{ state: "claimed" }]);
    });

    it("commits a queued batch in order with what was queued around it, and its session change", async () => {
      const store = await fresh();
      const session = await store.createSession({ principal: "agent", configHash: "h" });
      await store.updateSession(session.id, { metadata: { pendingBatch: { calls: 1 }, keep: 1 } });
      await store.appendMessage(session.id, { role: "user", content: "hello" });
      await store.emitMany(callEvents({ sessionId: session.id, callId: "c1", writes: false }));
      await store.queueBatch(
        session.id,
        { role: "assistant", content: { calls: ["c1"] } },
        [{ role: "tool", content: { results: ["r1"] } }],
        { sessionPatch: { metadata: { keep: 1 } } },
      );
      await store.appendMessage(session.id, { role: "assistant", content: "done" });
      const transcript = await store.loadTranscript(session.id);
      expect(transcript.map((m) => [m.seq, m.role, m.batch ?? null])).toEqual([
        [1, "user", null],
        [2, "assistant", 2],
        [3, "tool", 2],
        [4, "assistant", null],
      ]);
      expect((await store.getSession(session.id))?.metadata).toEqual({ keep: 1 });
    });

    it("refuses a queued batch for a session that does not exist at once, and queues nothing", async () => {
      const store = await fresh();
      const error = await store
        .queueBatch("ses_missing", { role: "assistant", content: "a" }, [])
        .catch((caught: unknown) => caught);
      expect(isDocketError(error) && error.code).toBe("unknown_session");
      await store.emitMany(callEvents({ sessionId: "s1", callId: "c1" }));
      expect(await store.verifyChain()).toMatchObject({ ok: true });
    });

    it("writes queued items exactly once when a batch saved after them fails", async () => {
      const store = await fresh();
      await store.emit(requested("c1"));
      await store.claimCall("s1", "c1", { writes: false, defer: true });
      await store.recordCallResult("s1", "c1", okResult("c1"), undefined, { defer: true });
      const error = await store
        .saveBatch("ses_missing", { role: "assistant", content: "a" }, [])
        .catch((caught: unknown) => caught);
      expect(isDocketError(error) && error.code).toBe("unknown_session");
      await store.flush();
      const [events, calls] = await rawSql(store, [
        "SELECT call_id, event FROM audit_events WHERE call_id = 'c1'",
        "SELECT state FROM calls WHERE call_id = 'c1'",
      ]);
      expect(eventsOfRows(events)).toHaveLength(1);
      expect(calls).toEqual([{ state: "finished" }]);
    });

    it("saves a batch and its session change in one transaction", async () => {
      const store = await fresh();
      const session = await store.createSession({ principal: "agent", configHash: "h" });
      await store.updateSession(session.id, { metadata: { pendingBatch: 1 } });
      await store.saveBatch(session.id, { role: "assistant", content: "a" }, [], {
        sessionPatch: { metadata: {} },
      });
      const [rows] = await rawSql(store, [
        `SELECT metadata FROM sessions WHERE id = '${session.id}'`,
      ]);
      expect(rows).toEqual([{ metadata: "{}" }]);
    });

    it("has a batch of reads on record when dispatchBatch returns, and commits queued reads with a write's intent", async () => {
      const store = await fresh();
      let seenByWrite: string[] = [];
      const lookup = defineTool({
        name: "lookup",
        description: "Look up.",
        input: z.object({}),
        writes: false,
        handler: () => "found",
      });
      const refund = defineTool({
        name: "refund",
        description: "Refund.",
        input: z.object({}),
        writes: true,
        handler: async () => {
          const [rows] = await rawSql(store, [
            "SELECT call_id, event FROM audit_events ORDER BY seq",
          ]);
          seenByWrite = eventsOfRows(rows).map((row) => `${row.call_id}:${row.type}`);
          return "refunded";
        },
      });
      const checkpoint = createCheckpoint({
        tools: [lookup, refund],
        policy: () => ({ decision: "allow", rule: "test" }),
        store,
      });
      const results = await checkpoint.dispatchBatch(
        [
          { id: "r1", name: "lookup", arguments: "{}" },
          { id: "w1", name: "refund", arguments: "{}" },
          { id: "r2", name: "lookup", arguments: "{}" },
        ],
        { sessionId: "s1" },
      );
      expect(results.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
      expect(seenByWrite).toEqual([
        "r1:requested",
        "r1:decided",
        "r1:started",
        "r1:finished",
        "w1:requested",
        "w1:decided",
        "w1:started",
      ]);
      const [events, calls] = await rawSql(store, [
        "SELECT call_id, event FROM audit_events ORDER BY seq",
        "SELECT call_id, state FROM calls ORDER BY call_id",
      ]);
      expect(eventsOfRows(events)).toHaveLength(12);
      expect(calls).toEqual([
        { call_id: "r1", state: "finished" },
        { call_id: "r2", state: "finished" },
        { call_id: "w1", state: "finished" },
      ]);
      // Re-delivered, the same ids are answered from the record and nothing runs again.
      const again = await checkpoint.dispatchBatch(
        [
          { id: "r1", name: "lookup", arguments: "{}" },
          { id: "w1", name: "refund", arguments: "{}" },
        ],
        { sessionId: "s1" },
      );
      expect(again.map((r) => r.status)).toEqual(["ok", "ok"]);
      expect(again.map((r) => r.message)).toEqual([
        expect.stringContaining("already ran"),
        expect.stringContaining("already ran"),
      ]);
    });
  });
}
