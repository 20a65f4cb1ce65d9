import { describe, expect, it } from "vitest";
import { z } from "zod";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { DESK_POLICY, deskDirectory, deskTools } from "./support/desk-tools.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

const Summary = z.object({
  order_id: z.string(),
  status: z.enum(["delivered", "in_transit", "unknown"]),
});

function lookupThenAnswer(answer: string) {
  return createScriptedModel(
    scriptOf([turn("Looking.", call("c1", "get_order", { order_id: "SU-1" })), turn(answer)]),
  );
}

describe("a run with an output schema", () => {
  it("asks every turn for JSON with the schema, and gives the final answer typed", async () => {
    const { store } = await tempStore();
    const model = lookupThenAnswer('{"order_id":"SU-1","status":"delivered"}');
    const harness = createHarness({ model, tools: deskTools().tools, store, toolLint: false });
    const result = await harness.run("Where is SU-1?", { output: Summary });
    expect(result.status).toBe("completed");
    expect(result.output).toEqual({
      status: "valid",
      value: { order_id: "SU-1", status: "delivered" },
    });
    if (result.output?.status === "valid") {
      // Typed from the schema: this line is checked by tsc.
      const status: "delivered" | "in_transit" | "unknown" = result.output.value.status;
      expect(status).toBe("delivered");
    }
    expect(model.requests).toHaveLength(2);
    for (const request of model.requests) {
      expect(request.responseFormat).toMatchObject({
        type: "json",
        schema: { type: "object", required: ["order_id", "status"] },
      });
    }
  });

  it("reports an answer the schema refuses as a result, not a throw, and keeps the text", async () => {
    const { store } = await tempStore();
    const harness = createHarness({
      model: lookupThenAnswer('{"order_id":"SU-1","status":"lost"}'),
      tools: deskTools().tools,
      store,
    });
    const result = await harness.run("Where is SU-1?", { output: Summary });
    expect(result.status).toBe("completed");
    expect(result.text).toBe('{"order_id":"SU-1","status":"lost"}');
    expect(result.output).toMatchObject({ status: "invalid", issues: [{ path: "/status" }] });
  });

  it("has no output while the run waits for an approval, and checks it when resumed to the end", async () => {
    const { store } = await tempStore();
    const script = scriptOf([
      turn("Refunding.", call("c1", "issue_refund", { order_id: "SU-1", amount: 20 })),
      turn('{"order_id":"SU-1","status":"delivered"}'),
    ]);
    const make = () =>
      createHarness({
        model: createScriptedModel(script),
        tools: deskTools().tools,
        policy: DESK_POLICY,
        store,
        approvals: createDurableApprover({ store, directory: deskDirectory(), mode: "suspend" }),
      });
    const suspended = await make().run("Refund 20 on SU-1.", { output: Summary });
    expect(suspended.status).toBe("suspended");
    expect(suspended.output).toBeUndefined();
    await decideApproval(store, deskDirectory(), {
      approvalId: suspended.approvals?.[0]?.approvalId ?? "",
      decision: "approve",
      claim: { name: "alice" },
    });
    const resumed = await make().resume(suspended.sessionId, { output: Summary });
    expect(resumed.status).toBe("completed");
    expect(resumed.output).toEqual({
      status: "valid",
      value: { order_id: "SU-1", status: "delivered" },
    });
  });

  it("refuses a schema that cannot describe itself before any session is made", async () => {
    const { store } = await tempStore();
    const harness = createHarness({ model: lookupThenAnswer("{}"), tools: [], store });
    const opaque = {
      "~standard": { version: 1, vendor: "hand-made", validate: (value: unknown) => ({ value }) },
    } as const;
    await expect(harness.run("Hi.", { output: opaque })).rejects.toMatchObject({
      code: "invalid_tool",
    });
    expect(await store.listSessions()).toEqual([]);
  });
});
