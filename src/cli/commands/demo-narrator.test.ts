import { describe, expect, it } from "vitest";
import type { AuditRecord } from "../../store/audit-record.js";
import { narrateCall } from "./demo-narrator.js";

const trail = (...events: Record<string, unknown>[]) =>
  events.map((event) => ({ event })) as unknown as AuditRecord[];

describe("narrateCall", () => {
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
      "refused before the policy was asked (unreadable_arguments)",
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
