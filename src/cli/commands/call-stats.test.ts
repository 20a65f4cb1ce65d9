import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../store/audit-record.js";
import type { StoreEvent } from "../../store/store-event.js";
import { callStats, percentile } from "./call-stats.js";

let seq = 0;
function record(
  event: Partial<StoreEvent> & { type: StoreEvent["type"]; callId: string; at: number },
) {
  seq += 1;
  const full = { tool: "t", sessionId: "s", ...event } as StoreEvent;
  return {
    sessionId: "s",
    seq,
    callId: event.callId,
    type: event.type,
    tool: full.tool,
    at: event.at,
    event: full,
    prevHash: "",
    hash: "",
  } as AuditRecord;
}

describe("callStats", () => {
  it("places a call in the period of its first request, and counts a resumed call once", () => {
    const day1 = Date.parse("2026-03-01T23:59:00Z");
    const day2 = Date.parse("2026-03-02T00:01:00Z");
    const rows = callStats([
      record({ type: "requested", callId: "a", at: day1 }),
      record({ type: "decided", callId: "a", at: day1, decision: "ask" } as never),
      record({ type: "approval_requested", callId: "a", at: day1 + 10 } as never),
      record({ type: "awaiting_approval", callId: "a", at: day1 + 11 } as never),
      // Resumed the next day: requested again, then approved and run.
      record({ type: "requested", callId: "a", at: day2 }),
      record({ type: "approved", callId: "a", at: day2 + 5, by: "alice" } as never),
      record({ type: "started", callId: "a", at: day2 + 6 } as never),
      record({
        type: "finished",
        callId: "a",
        at: day2 + 9,
        status: "ok",
        durationMs: 9,
        outputBytes: 8,
        output: "12345678",
      } as never),
      // Events of a call whose request is not in the records are left out.
      record({
        type: "finished",
        callId: "orphan",
        at: day2,
        status: "ok",
        durationMs: 1,
        outputBytes: 1,
        output: "x",
      } as never),
    ]);
    expect(rows).toHaveLength(1);
    // From the resumed dispatch: 9 ms in all, 6 of them before the handler started.
    expect(rows[0]?.handlerMs.max).toBe(3);
    expect(rows[0]?.approvalWaitMs.p50).toBe(day2 + 5 - (day1 + 10));
    expect(rows[0]).toMatchObject({
      period: "2026-03-01",
      calls: 1,
      asked: 1,
      ok: 1,
      resultBytes: 8,
      resultTokens: 2,
    });
  });

  it("takes nearest-rank percentiles", () => {
    expect(percentile([], 0.5)).toBe(0);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2);
    expect(percentile([1, 2, 3, 4], 0.95)).toBe(4);
    expect(percentile([7], 0.95)).toBe(7);
  });
});
