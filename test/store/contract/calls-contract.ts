import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../../src/checkpoint/tool-result.js";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents } from "../support/call-events.js";

const ok = (callId: string, output: unknown): ToolResult => ({
  callId,
  name: "refund_order",
  status: "ok",
  output,
  message: "refund_order succeeded.",
  durationMs: 3,
});

/** Claims, recorded outcomes and dedupe: a call id is never run twice. */
export function callsContract(fresh: OpenFreshStore): void {
  describe("calls", () => {
    it("claims a call id once; a repeat sees it, with its outcome once it has one", async () => {
      const store = await fresh();
      expect(
        await store.claimCall("ses_1", "c1", {
          tool: "refund_order",
          writes: true,
          argsHash: "ab12",
        }),
      ).toEqual({ status: "claimed" });
      // A repeat learns which call holds the id, to tell the same call from a reused id.
      expect(await store.claimCall("ses_1", "c1")).toEqual({
        status: "seen",
        state: "claimed",
        tool: "refund_order",
        argsHash: "ab12",
      });
      expect(await store.claimCall("ses_2", "c1")).toEqual({ status: "claimed" });
      await store.emitMany(callEvents({ sessionId: "ses_1", callId: "c1" }));
      const seen = await store.claimCall("ses_1", "c1");
      expect(seen).toMatchObject({
        status: "seen",
        state: "finished",
        outcome: { kind: "finished", status: "ok", output: '{"refund_id":"rf_1"}' },
      });
      const [call] = await store.listCalls({ sessionId: "ses_1" });
      expect(call).toMatchObject({
        callId: "c1",
        tool: "refund_order",
        writes: true,
        principal: "agent",
        decision: "allow",
        rule: "refunds-under-100",
        state: "finished",
        status: "ok",
        owner: store.owner,
        argsHash: "ab12",
      });
    });

    it("lets exactly one of many concurrent claims win", async () => {
      const store = await fresh();
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => store.claimCall("ses_1", "race")),
      );
      expect(answers.filter((a) => a.status === "claimed")).toHaveLength(1);
    });

    it("records refused, awaiting and finished outcomes; a duplicate id does not overwrite", async () => {
      const store = await fresh();
      await store.emitMany(callEvents({ sessionId: "s", callId: "r1", outcome: "refused" }));
      expect(await store.callOutcome("s", "r1")).toMatchObject({
        kind: "refused",
        status: "refused",
        reason: "denied",
      });
      const base = { callId: "a1", tool: "refund_order", sessionId: "s" };
      await store.emit({
        ...base,
        type: "requested",
        at: 1,
        principal: "agent",
        rawArguments: "{}",
        rawBytes: 2,
      });
      await store.emit({ ...base, type: "awaiting_approval", at: 2, approvalId: "apr_1" });
      expect(await store.callOutcome("s", "a1")).toMatchObject({
        kind: "awaiting_approval",
        approvalId: "apr_1",
      });
      await store.emitMany(callEvents({ sessionId: "s", callId: "a1" }).slice(1));
      expect(await store.callOutcome("s", "a1")).toMatchObject({ kind: "finished", status: "ok" });
      // The checkpoint refuses a repeated id in a batch: that refusal is not the call's outcome.
      await store.emitMany(callEvents({ sessionId: "s", callId: "a1", outcome: "refused" }));
      expect(await store.callOutcome("s", "a1")).toMatchObject({ kind: "finished" });
      expect(await store.callOutcome("s", "unknown")).toBeUndefined();
    });

    it("finds an earlier successful result by dedupe key, within the window", async () => {
      const store = await fresh();
      const before = Date.now();
      await store.recordCallResult("s", "c1", ok("c1", { refund: "rf_1" }), "refund:88421");
      await store.recordCallResult(
        "s",
        "c2",
        {
          callId: "c2",
          name: "refund_order",
          status: "failed",
          reason: "error",
          message: "boom",
          durationMs: 1,
        },
        "refund:5",
      );
      expect(await store.findDuplicate("s", "refund_order", "refund:88421")).toMatchObject({
        callId: "c1",
        result: { status: "ok", output: { refund: "rf_1" } },
      });
      expect(
        await store.findDuplicate("s", "refund_order", "refund:88421", before - 1),
      ).toBeDefined();
      expect(
        await store.findDuplicate("s", "refund_order", "refund:88421", Date.now() + 60_000),
      ).toBeUndefined();
      expect(await store.findDuplicate("s", "other_tool", "refund:88421")).toBeUndefined();
      expect(await store.findDuplicate("t", "refund_order", "refund:88421")).toBeUndefined();
      expect(await store.findDuplicate("s", "refund_order", "refund:5")).toBeUndefined();
      expect(await store.callOutcome("s", "c1")).toMatchObject({
        kind: "finished",
        status: "ok",
        result: { output: { refund: "rf_1" } },
      });
    });

    it("finds a success whose result is still queued, and its finish when only that is queued", async () => {
      const store = await fresh();
      // A read's events and result wait for the end of its batch: the look must still see them.
      await store.emitMany(
        callEvents({ sessionId: "s", callId: "c1", writes: false, outcome: "open" }),
      );
      await store.recordCallResult("s", "c1", ok("c1", { refund: "rf_9" }), "k9", { defer: true });
      expect((await store.findDuplicate("s", "refund_order", "k9"))?.callId).toBe("c1");
      await store.emitMany(
        callEvents({ sessionId: "s", callId: "c2", writes: false, outcome: "open" }),
      );
      await store.recordCallResult("s", "c2", ok("c2", { refund: "rf_8" }), "k8", { defer: true });
      await store.flush();
      expect((await store.findDuplicate("s", "refund_order", "k8"))?.callId).toBe("c2");
      expect(await store.findDuplicate("s", "refund_order", "k7")).toBeUndefined();
    });

    it("keeps a result recorded after the call's events, and lists calls by status", async () => {
      const store = await fresh();
      await store.emitMany(callEvents({ sessionId: "s", callId: "c1" }));
      await store.recordCallResult("s", "c1", ok("c1", { big: "output" }), "k1");
      expect(await store.callOutcome("s", "c1")).toMatchObject({
        output: '{"refund_id":"rf_1"}',
        result: { output: { big: "output" } },
      });
      expect((await store.findDuplicate("s", "refund_order", "k1"))?.callId).toBe("c1");
      await store.emitMany(
        callEvents({ sessionId: "s", callId: "c2", outcome: "failed", at: 1_800_000_000_000 }),
      );
      expect((await store.listCalls({ status: "failed" })).map((c) => c.callId)).toEqual(["c2"]);
      expect((await store.listCalls({ tool: "refund_order" })).map((c) => c.callId)).toEqual([
        "c2",
        "c1",
      ]);
    });

    it("pages a session's calls by call id: each page starts at the last id of the one before", async () => {
      const store = await fresh();
      const ids = ["", "a", "b", "b2", "c", "d", "e"];
      for (const [i, callId] of ids.entries()) {
        await store.emitMany(callEvents({ sessionId: "s", callId, at: 1_800_000_000_000 - i }));
      }
      await store.emitMany(callEvents({ sessionId: "other", callId: "a0" }));
      const seen: string[] = [];
      for (let from = "", pages = 0; pages < 10; pages += 1) {
        const page = await store.listCalls({ sessionId: "s", fromCallId: from, limit: 3 });
        expect(page.map((c) => c.callId)).toEqual(ids.filter((id) => id >= from).slice(0, 3));
        seen.push(...page.map((c) => c.callId).filter((id) => id !== from || pages === 0));
        if (page.length < 3) break;
        from = page.at(-1)?.callId ?? "";
      }
      expect(seen).toEqual(ids);
    });
  });
}
