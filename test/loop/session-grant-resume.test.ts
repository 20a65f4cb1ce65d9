import { describe, expect, it } from "vitest";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import type { PolicyConfig } from "../../src/policy/policy.js";
import { deskDirectory, deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

const POLICY: PolicyConfig = {
  rules: [
    {
      id: "refund-ceiling",
      decision: "ask",
      tool: "issue_refund",
      when: "args.amount > 150",
      approvers: ["role:lead"],
      reason: "refunds over 150 USD need a lead",
    },
  ],
};

const refund = (id: string, order: string, amount: number) =>
  call(id, "issue_refund", { order_id: order, amount });

describe("approve for this session, across docket resume", () => {
  it("covers a later refund of the same amount after resume, and asks again for 5,000 USD", async () => {
    const { store } = await tempStore();
    const directory = deskDirectory();
    const desk = deskTools();
    const harness = createHarness({
      model: createScriptedModel(
        scriptOf([
          turn("Refunding 300.", refund("r1", "SU-1", 300)),
          turn("Two more.", refund("r2", "SU-2", 300), refund("r3", "SU-3", 5000)),
          turn("Done."),
        ]),
      ),
      tools: desk.tools,
      policy: POLICY,
      store,
      approvals: createDurableApprover({ store, directory, mode: "suspend" }),
      principal: "agent",
    });

    const first = await harness.run("Refund my orders.");
    expect(first.status).toBe("suspended");
    const [pending] = first.approvals ?? [];
    if (pending === undefined) throw new Error("no approval was requested");
    const stored = await store.getApproval(pending.approvalId);
    expect(stored?.grantText).toContain("amount = 300");
    await decideApproval(store, directory, {
      approvalId: pending.approvalId,
      decision: "approve",
      scope: "session",
      claim: { name: "alice" },
    });

    const resumed = await harness.resume(first.sessionId);
    // r1 ran as approved; r2 (300 USD, another order) ran on the grant; r3 (5,000 USD) waits.
    expect(desk.runs).toEqual(["issue_refund:r1", "issue_refund:r2"]);
    expect(resumed.status).toBe("suspended");
    expect(resumed.approvals?.map((a) => a.callId)).toEqual(["r3"]);
    const open = await store.listApprovals({ sessionId: first.sessionId, status: "pending" });
    expect(open.map((a) => a.callId)).toEqual(["r3"]);
  });

  it("never overrides a person's denial of a call the grant would cover", async () => {
    const { store } = await tempStore();
    const directory = deskDirectory();
    const desk = deskTools();
    const harness = createHarness({
      model: createScriptedModel(
        scriptOf([
          turn("Two refunds.", refund("a1", "SU-1", 300), refund("a2", "SU-2", 300)),
          turn("Done."),
        ]),
      ),
      tools: desk.tools,
      policy: POLICY,
      store,
      approvals: createDurableApprover({ store, directory, mode: "suspend" }),
      principal: "agent",
    });
    const first = await harness.run("Refund both.");
    const [one, two] = first.approvals ?? [];
    if (one === undefined || two === undefined) throw new Error("two approvals expected");
    await decideApproval(store, directory, {
      approvalId: one.approvalId,
      decision: "approve",
      scope: "session",
      claim: { name: "alice" },
    });
    await decideApproval(store, directory, {
      approvalId: two.approvalId,
      decision: "deny",
      reason: "SU-2 was refunded by phone",
      claim: { name: "alice" },
    });
    const resumed = await harness.resume(first.sessionId);
    expect(resumed.status).toBe("completed");
    expect(desk.runs).toEqual(["issue_refund:a1"]);
  });
});
