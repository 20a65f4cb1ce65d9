import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../store/audit-record.js";
import type { CallRecord } from "../../store/call-record.js";
import { approvalTimings, auditRow, formatDuration, storyOrder, timingKey } from "./audit-rows.js";

const call = (sessionId: string, callId: string, extra: Partial<CallRecord> = {}) =>
  ({ sessionId, callId, tool: "t", state: "finished", seenAt: 0, ...extra }) as CallRecord;
const record = (event: Record<string, unknown>) => ({ event }) as unknown as AuditRecord;

describe("audit list rows", () => {
  it("orders each session oldest first, sessions by their latest call; --reverse is newest first", () => {
    const newest = [call("s2", "b2"), call("s1", "a2"), call("s2", "b1"), call("s1", "a1")];
    expect(storyOrder(newest).map((c) => c.callId)).toEqual(["b1", "b2", "a1", "a2"]);
    expect(storyOrder(newest, true).map((c) => c.callId)).toEqual(["b2", "a2", "b1", "a1"]);
  });

  it("says who decided and keeps the human's wait apart from the handler's run", () => {
    const timings = approvalTimings([
      record({ type: "approval_requested", sessionId: "s", callId: "c", at: 1_000 }),
      record({ type: "approved", sessionId: "s", callId: "c", at: 6_000, by: "lead" }),
      // A second answer for the same call does not replace the first.
      record({ type: "approved", sessionId: "s", callId: "c", at: 9_000, by: "other" }),
    ]);
    expect(timings.get(timingKey("s", "c"))).toEqual({ by: "lead", waitMs: 5_000 });
    const asked = call("s", "c", {
      decision: "ask",
      rule: "r",
      startedAt: 6_000,
      finishedAt: 6_003,
      status: "ok",
    });
    expect(auditRow(asked, timings, false).slice(1)).toEqual([
      "c",
      "t",
      "ask",
      "r",
      "lead",
      "ok",
      "",
      "3 ms",
      "5.0 s",
    ]);
    const allowed = call("s", "d", { decision: "allow", status: "ok" });
    expect(auditRow(allowed, timings, true)[6]).toBe("policy");
    expect(auditRow(call("s", "e", { decision: "ask" }), timings, false)[5]).toBe("(nobody)");
    expect(formatDuration(undefined)).toBe("-");
  });
});
