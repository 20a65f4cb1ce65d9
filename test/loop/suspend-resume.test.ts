import { describe, expect, it } from "vitest";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import type { ToolResult } from "../../src/checkpoint/tool-result.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { toPrompt } from "../../src/loop/to-prompt.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { DESK_POLICY, deskDirectory, deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";
import { expectWholeBatches } from "./support/whole-batches.js";

const refund = (id: string, order: string, amount: number) =>
  call(id, "issue_refund", { order_id: order, amount });

const SCRIPT = scriptOf([
  turn(
    "Checking, then refunding.",
    call("c_lookup", "get_order", { order_id: "SU-1" }),
    refund("r_approve", "SU-1", 20),
    refund("r_deny", "SU-2", 30),
    refund("r_expire", "SU-3", 40),
  ),
  turn("One refund went through; the others need another look."),
]);

async function deskHarness() {
  const { store } = await tempStore();
  const directory = deskDirectory();
  // The approver's clock: moved forward to expire the request nobody answers.
  let skew = 0;
  const approvals = createDurableApprover({
    store,
    directory,
    mode: "suspend",
    now: () => Date.now() + skew,
  });
  const model = createScriptedModel(SCRIPT);
  const desk = deskTools();
  const harness = createHarness({
    model,
    tools: desk.tools,
    policy: DESK_POLICY,
    store,
    approvals,
    principal: "agent",
  });
  return {
    store,
    directory,
    model,
    runs: desk.runs,
    harness,
    skewBy: (ms: number) => (skew += ms),
  };
}

describe("suspending for approvals and resuming", () => {
  it("runs the approved call exactly once, reports the denied and expired ones, saves one batch", async () => {
    const { store, directory, model, runs, harness, skewBy } = await deskHarness();

    const suspended = await harness.run("Refund my three orders.");
    expect(suspended.status).toBe("suspended");
    expect(suspended.approvals?.map((a) => [a.callId, a.tool])).toEqual([
      ["r_approve", "issue_refund"],
      ["r_deny", "issue_refund"],
      ["r_expire", "issue_refund"],
    ]);
    expect(runs).toEqual(["get_order:c_lookup"]);
    // Nothing of the batch is in the transcript while it waits: never a request without results.
    expect(await store.loadTranscript(suspended.sessionId)).toHaveLength(1);
    expect((await store.getSession(suspended.sessionId))?.status).toBe("suspended");

    // Resuming before anyone decides changes nothing and opens no second request.
    const early = await harness.resume(suspended.sessionId);
    expect(early.status).toBe("suspended");
    expect(early.approvals?.map((a) => a.approvalId)).toEqual(
      suspended.approvals?.map((a) => a.approvalId),
    );
    expect(await store.listApprovals({ sessionId: suspended.sessionId })).toHaveLength(3);
    expect(runs).toEqual(["get_order:c_lookup"]);

    const [approveId, denyId] = (suspended.approvals ?? []).map((a) => a.approvalId);
    const approved = await decideApproval(store, directory, {
      approvalId: approveId ?? "",
      decision: "approve",
      claim: { name: "alice" },
    });
    expect(approved.status).toBe("decided");
    const denied = await decideApproval(store, directory, {
      approvalId: denyId ?? "",
      decision: "deny",
      reason: "SU-2 was refunded last week",
      claim: { name: "alice" },
    });
    expect(denied.status).toBe("decided");
    skewBy(16 * 60_000);

    const reported: ToolResult[] = [];
    const resumed = await harness.resume(suspended.sessionId, {
      onEvent: (e) => e.type === "tool_result" && reported.push(e.result),
    });
    expect(resumed).toMatchObject({
      status: "completed",
      text: "One refund went through; the others need another look.",
    });
    expect(runs).toEqual(["get_order:c_lookup", "issue_refund:r_approve"]);
    expect(reported.map((r) => [r.callId, r.status, r.reason])).toEqual([
      ["r_approve", "ok", undefined],
      ["r_deny", "refused", "approval_denied"],
      ["r_expire", "refused", "approval_denied"],
    ]);
    expect(reported[1]?.message).toContain("alice denied this call to issue_refund");
    expect(reported[1]?.message).toContain("SU-2 was refunded last week");
    expect(reported[2]?.message).toContain("expired");

    // The assistant message and all four results were saved as one unit, in the asked order.
    const saved = await expectWholeBatches(store, suspended.sessionId);
    expect(saved.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    const results = (saved[2] as Extract<TranscriptMessage, { role: "tool" }>).results;
    expect(results.map((r) => [r.callId, r.status, r.isError])).toEqual([
      ["c_lookup", "ok", false],
      ["r_approve", "ok", false],
      ["r_deny", "refused", true],
      ["r_expire", "refused", true],
    ]);
    // The resumed request carried exactly the saved transcript.
    expect(model.requests.at(-1)?.prompt).toEqual(toPrompt(saved.slice(0, 3)));
    expect(model.requests).toHaveLength(2);
    expect((await store.getApproval(approveId ?? ""))?.decidedBy).toBe("alice");
  });

  // Bug (src/loop/create-harness.ts): run(input, { sessionId }) on a suspended session appends the
  // new user message while the batch is still pending; the batch is saved after it later, so the
  // transcript shows the assistant's calls answering a message it never saw. It should refuse
  // (or settle the batch first) instead.
  it("does not put new words ahead of a pending batch", async () => {
    const { store, harness } = await deskHarness();
    const suspended = await harness.run("Refund my three orders.");
    expect(suspended.status).toBe("suspended");

    await harness.run("Any news?", { sessionId: suspended.sessionId }).catch(() => undefined);
    const saved = (await store.loadTranscript(suspended.sessionId)).map((m) => m.content);
    expect(saved).toEqual([{ role: "user", text: "Refund my three orders." }]);
  });
});
