import { describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open-store.js";
import type { StoreEvent } from "../../../src/store/store-event.js";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents } from "../support/call-events.js";

/** A started write whose process is gone is closed as interrupted, and never run again. */
export function recoveryContract(fresh: OpenFreshStore): void {
  describe("recovery", () => {
    it("interrupts a started write of a closed store on open, and releases its stale claim", async () => {
      const first = await fresh();
      await first.emitMany(callEvents({ sessionId: "s", callId: "write", outcome: "open" }));
      await first.emitMany(
        callEvents({ sessionId: "s", callId: "read", writes: false, outcome: "open" }),
      );
      expect(await first.claimCall("s", "claimed_only", { tool: "refund_order" })).toEqual({
        status: "claimed",
      });
      await first.close();

      const second = await openStore(first.location);
      try {
        const [interrupted, ...more] = await second.listInterrupted("s");
        expect(more).toEqual([]);
        expect(interrupted).toMatchObject({
          callId: "write",
          state: "interrupted",
          status: "failed",
          reason: "interrupted",
          writes: true,
        });
        expect(await second.callOutcome("s", "write")).toMatchObject({
          kind: "interrupted",
          status: "failed",
          reason: "interrupted",
        });
        expect(await second.claimCall("s", "write")).toMatchObject({
          status: "seen",
          outcome: { kind: "interrupted" },
        });
        expect(await second.claimCall("s", "claimed_only")).toEqual({ status: "claimed" });
        const last = (await second.listEvents({ sessionId: "s" })).at(-1);
        expect(last?.event).toMatchObject({ type: "interrupted", callId: "write" });
        expect(await second.verifyChain()).toMatchObject({ ok: true });
        expect(await second.markInterrupted()).toEqual([]);
      } finally {
        await second.close();
      }
    });

    it("closes a read in flight at a crash as interrupted on the next open, like a write", async () => {
      const first = await fresh();
      const [requested, decided, started] = callEvents({
        sessionId: "s",
        callId: "reading",
        tool: "search",
        writes: false,
        outcome: "open",
      }) as StoreEvent[];
      await first.emitMany([requested, decided] as StoreEvent[]);
      expect(await first.claimCall("s", "reading", { tool: "search", writes: false })).toEqual({
        status: "claimed",
      });
      await first.emit(started as StoreEvent);
      // A live owner's read is still running: left alone, even with `all`.
      const other = await openStore(first.location);
      try {
        expect(await other.markInterrupted({ all: true })).toEqual([]);
      } finally {
        await other.close();
      }
      await first.close();

      const second = await openStore(first.location);
      try {
        const [read, ...more] = await second.listInterrupted("s");
        expect(more).toEqual([]);
        expect(read).toMatchObject({ callId: "reading", state: "interrupted", writes: false });
        const last = (await second.listEvents({ sessionId: "s" })).at(-1);
        expect(last?.event).toMatchObject({ type: "interrupted", callId: "reading" });
        expect(String((last?.event as { message?: string } | undefined)?.message)).toContain(
          "(a read)",
        );
        expect(await second.claimCall("s", "reading", { tool: "search" })).toMatchObject({
          status: "seen",
          outcome: { kind: "interrupted" },
        });
        expect(await second.verifyChain()).toMatchObject({ ok: true });
      } finally {
        await second.close();
      }
    });

    it("leaves a live owner's call alone unless told to take all", async () => {
      const live = await fresh();
      const events = callEvents({ sessionId: "s", callId: "w" });
      const [requested, decided, started, finished] = events as StoreEvent[];
      await live.emitMany([requested, decided, started] as StoreEvent[]);
      const other = await openStore(live.location);
      try {
        expect(await other.listInterrupted()).toEqual([]);
        expect(await live.markInterrupted()).toEqual([]);
        const taken = await other.markInterrupted({ all: true });
        expect(taken.map((call) => call.callId)).toEqual(["w"]);
        // The owner finishing later is recorded in the trail but does not reopen the call.
        await live.emit(finished as StoreEvent);
        expect(await live.callOutcome("s", "w")).toMatchObject({ kind: "interrupted" });
        expect((await live.listEvents({ sessionId: "s" })).map((r) => r.type)).toEqual([
          "requested",
          "decided",
          "started",
          "interrupted",
          "finished",
        ]);
      } finally {
        await other.close();
      }
    });

    it("treats a resumed call (after approval) as running again", async () => {
      const first = await fresh();
      const base = { callId: "a1", tool: "refund_order", sessionId: "s" };
      await first.emitMany([
        { ...base, type: "requested", at: 1, principal: "agent", rawArguments: "{}", rawBytes: 2 },
        { ...base, type: "awaiting_approval", at: 2, approvalId: "apr_1" },
        { ...base, type: "started", at: 3, writes: true, timeoutMs: 1000 },
      ]);
      expect(await first.callOutcome("s", "a1")).toBeUndefined();
      await first.close();
      const second = await openStore(first.location);
      try {
        expect((await second.listInterrupted()).map((call) => call.callId)).toEqual(["a1"]);
      } finally {
        await second.close();
      }
    });
  });
}
