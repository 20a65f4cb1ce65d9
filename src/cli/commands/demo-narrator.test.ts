import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../store/audit-record.js";
import { narrateCall } from "./demo-narrator.js";

const trail = (...events: Record<string, unknown>[]) =>
  events.map((event) => ({ event })) as unknown as AuditRecord[];

describe("narrateCall", () => {
  it("says when a result was capped before the model's context, and not otherwise", () => {
    const finished = (outputBytes: number, output: string) =>
      narrateCall(trail({ type: "started" }, { type: "finished", outputBytes, output }));
    expect(finished(2119, "x".repeat(987))).toEqual([
      "it runs",
      "its result (2,119 bytes) is capped to 987 before the model's context: the head and tail, and what was cut",
    ]);
    expect(finished(12, '{"ok":true}x')).toEqual(["it runs"]);
  });

  it("tells an approved ask: the rule, who was asked, who approved and why", () => {
    expect(
      narrateCall(
        trail(
          { type: "requested" },
          { type: "decided", decision: "ask", rule: "refund-ceiling", reason: "over 150 USD" },
          { type: "approval_requested", approvers: ["role:lead"] },
          { type: "approved", by: "lead", reason: "--approve" },
          { type: "started" },
          { type: "finished" },
        ),
      ),
    ).toEqual([
      "the policy says ask, by rule refund-ceiling: over 150 USD",
      "asked role:lead for approval",
      "approved by lead (--approve)",
      "it runs",
    ]);
  });

  it("tells a denial, a refusal before the policy and an ask nobody could answer", () => {
    expect(
      narrateCall(
        trail(
          { type: "decided", decision: "ask", rule: "r" },
          { type: "approval_requested" },
          { type: "approval_denied", by: "lead", reason: "not today" },
          { type: "refused", reason: "approval_denied" },
        ),
      ),
    ).toEqual([
      "the policy says ask, by rule r",
      "asked an approver for approval",
      "denied by lead (not today)",
    ]);
    expect(narrateCall(trail({ type: "refused", reason: "unreadable_arguments" }))).toEqual([
      "refused at step 3, the arguments: they are not one JSON object, and the model is asked to resend them (unreadable_arguments)",
    ]);
    expect(narrateCall(trail({ type: "refused", reason: "unknown_tool" }))).toEqual([
      "refused at step 2, the tool: no tool has that name, and the model is sent the names that exist (unknown_tool)",
    ]);
    expect(narrateCall(trail({ type: "refused", reason: "audit_failed" }))).toEqual([
      "refused before the policy was asked (audit_failed)",
    ]);
    expect(
      narrateCall(
        trail(
          { type: "decided", decision: "ask" },
          { type: "refused", reason: "approval_required" },
        ),
      ),
    ).toEqual(["the policy says ask", "no one could be asked, so it did not run"]);
  });
});
