import { describe, expect, it } from "vitest";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { DESK_POLICY, deskDirectory, deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";
import { expectWholeBatches } from "./support/whole-batches.js";

describe("two resumes of one suspended session at once", () => {
  // Both resumes would re-dispatch the pending batch and save it; the harness makes runs of one
  // session take turns, so the second finds the batch saved and the call already run.
  it("runs the approved call once and saves its batch once", async () => {
    const { store } = await tempStore();
    const directory = deskDirectory();
    const desk = deskTools();
    const harness = createHarness({
      model: createScriptedModel(
        scriptOf([
          turn("Refunding.", call("r1", "issue_refund", { order_id: "SU-1", amount: 20 })),
          turn("Refunded."),
          turn("Refunded, again."),
        ]),
      ),
      tools: desk.tools,
      policy: DESK_POLICY,
      store,
      approvals: createDurableApprover({ store, directory, mode: "suspend" }),
    });
    const suspended = await harness.run("Refund SU-1.");
    await decideApproval(store, directory, {
      approvalId: suspended.approvals?.[0]?.approvalId ?? "",
      decision: "approve",
      claim: { name: "alice" },
    });

    // Either answer is sound: the second waits for the first, or it is refused as busy.
    const settled = await Promise.allSettled([
      harness.resume(suspended.sessionId),
      harness.resume(suspended.sessionId),
    ]);
    expect(settled.some((s) => s.status === "fulfilled" && s.value.status === "completed")).toBe(
      true,
    );

    expect(desk.runs).toEqual(["issue_refund:r1"]);
    const saved = await expectWholeBatches(store, suspended.sessionId);
    expect(
      saved.flatMap((m) => (m.role === "assistant" ? m.toolCalls.map((c) => c.id) : [])),
    ).toEqual(["r1"]);
  });
});
