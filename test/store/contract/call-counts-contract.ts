import { describe, expect, it } from "vitest";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents } from "../support/call-events.js";

/** `countCalls`: how many calls each session recorded, in one read, for list pages. */
export function callCountsContract(fresh: OpenFreshStore): void {
  describe("call counts", () => {
    it("counts every call of each session asked for, finished, refused or still open, and 0 for the rest", async () => {
      const store = await fresh();
      const events = [
        ...Array.from({ length: 130 }, (_, i) =>
          callEvents({ sessionId: "ses_a", callId: `a${i}` }),
        ),
        callEvents({ sessionId: "ses_b", callId: "b1", outcome: "refused" }),
        callEvents({ sessionId: "ses_b", callId: "b2", outcome: "open" }),
        callEvents({ sessionId: "ses_c", callId: "c1" }),
      ].flat();
      await store.emitMany(events);
      const counts = await store.countCalls(["ses_a", "ses_b", "ses_none", "ses_a"]);
      expect([...counts]).toEqual([
        ["ses_a", 130],
        ["ses_b", 2],
        ["ses_none", 0],
      ]);
      expect((await store.countCalls([])).size).toBe(0);
    });

    it("counts what is still queued, so a count is never behind the trail", async () => {
      const store = await fresh();
      for (const event of callEvents({ sessionId: "ses_q", callId: "q1" })) {
        await store.emit(event, { defer: true });
      }
      expect((await store.countCalls(["ses_q"])).get("ses_q")).toBe(1);
    });

    it("answers for hostile ids as given: quotes, NUL, a lone surrogate, a thousand of them", async () => {
      const store = await fresh();
      const odd = "ses_\u0000\ud800'); DROP TABLE calls; --";
      await store.emitMany(callEvents({ sessionId: odd, callId: "o1" }));
      await store.emitMany(callEvents({ sessionId: "ses_plain", callId: "p1" }));
      const many = [odd, ...Array.from({ length: 1000 }, (_, i) => `ses_${i}' OR '1'='1`)];
      const counts = await store.countCalls(many);
      expect(counts.get(odd)).toBe(1);
      expect(counts.size).toBe(1001);
      expect([...counts.values()].reduce((a, b) => a + b, 0)).toBe(1);
      expect((await store.countCalls(["ses_plain"])).get("ses_plain")).toBe(1);
    });
  });
}
