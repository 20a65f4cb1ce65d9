import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callDurations, readableMs } from "./call-durations.js";

describe("callDurations", () => {
  it("takes a person's wait out of the handler's time", () => {
    const events = [
      { type: "requested", at: 1_000 },
      { type: "approval_requested", at: 1_002 },
      { type: "approved", at: 6_002 },
      { type: "started", at: 6_003 },
      { type: "finished", at: 6_029, durationMs: 5_028.838933999 },
    ];
    const split = callDurations(events);
    expect(split.approvalWaitMs).toBe(5_000);
    expect(split.handlerMs).toBeCloseTo(25.84, 2);
    expect(split.totalMs).toBeCloseTo(5_028.84, 2);
  });

  it("has no handler time for a refusal, and no wait without an ask", () => {
    const split = callDurations([
      { type: "requested", at: 1 },
      { type: "refused", at: 2, durationMs: 0.4 },
    ]);
    expect(split).toEqual({ totalMs: 0.4, handlerMs: undefined, approvalWaitMs: undefined });
  });
});

describe("readableMs", () => {
  it("never shows float noise", () => {
    expect(readableMs(25.83893399965018)).toBe("26 ms");
    expect(readableMs(3.14)).toBe("3.1 ms");
    expect(readableMs(61_500)).toBe("61.5 s");
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e9, noNaN: true }), (ms) => {
        expect(readableMs(ms)).toMatch(/^\d+(\.\d)? (ms|s)$/);
      }),
    );
  });
});
