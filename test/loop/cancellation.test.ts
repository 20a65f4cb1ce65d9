import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { deskTools } from "./support/desk-tools.js";
import { holdFirstRequest } from "./support/held-model.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";
import { promptResults } from "./support/transcript-pairs.js";
import { expectWholeBatches } from "./support/whole-batches.js";

/** A tool that runs until it is cancelled, and reports what its context's signal said. */
function waitingTool() {
  const seen: { started: () => void; aborted: boolean | undefined } = {
    started: () => {},
    aborted: undefined,
  };
  const started = new Promise<void>((resolve) => {
    seen.started = resolve;
  });
  const tool = defineTool({
    name: "export_report",
    description: "Build a long report.",
    input: z.object({}),
    writes: false,
    handler: async (_args, ctx) => {
      seen.started();
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
      seen.aborted = ctx.signal.aborted;
      throw new Error("stopped");
    },
  });
  return { tool, seen, started };
}

describe("cancelling a run", () => {
  it("aborts the model request in flight, saves the session, and resumes", async () => {
    const { store } = await tempStore();
    const held = holdFirstRequest(createScriptedModel(scriptOf([turn("Hello again.")])));
    const harness = createHarness({ model: held.model, store });
    const controller = new AbortController();

    const running = harness.run("Hello?", { signal: controller.signal });
    await held.inFlight;
    controller.abort(new Error("user pressed Ctrl-C"));
    const result = await running;

    expect(held.signal()?.aborted).toBe(true);
    expect(result).toMatchObject({ status: "cancelled" });
    expect(result.text).toContain("can be resumed");
    expect((await store.getSession(result.sessionId))?.status).toBe("cancelled");
    expect(await expectWholeBatches(store, result.sessionId)).toEqual([
      { role: "user", text: "Hello?" },
    ]);

    const resumed = await harness.resume(result.sessionId);
    expect(resumed).toMatchObject({ status: "completed", text: "Hello again." });
    expect((await store.getSession(result.sessionId))?.status).toBe("completed");
  });

  it("aborts the running handler through ctx.signal, refuses the rest of the batch, and resumes", async () => {
    const { store } = await tempStore();
    const waiting = waitingTool();
    const desk = deskTools();
    const model = createScriptedModel(
      scriptOf([
        turn(
          "Building it.",
          call("call_report", "export_report"),
          call("call_after", "get_order", { order_id: "SU-1" }),
        ),
        turn("The report was stopped; ask again when you need it."),
      ]),
    );
    const harness = createHarness({ model, tools: [waiting.tool, ...desk.tools], store });
    const controller = new AbortController();

    const running = harness.run("Export the report.", { signal: controller.signal });
    await waiting.started;
    controller.abort(new Error("user pressed Ctrl-C"));
    const result = await running;

    expect(waiting.seen.aborted).toBe(true);
    expect(result.status).toBe("cancelled");
    expect(desk.runs).toEqual([]);
    // The batch is saved whole: the running call failed as cancelled, the next never started.
    const saved = await expectWholeBatches(store, result.sessionId);
    const results = saved.flatMap((m) => (m.role === "tool" ? m.results : []));
    expect(results.map((r) => [r.callId, r.status, r.reason, r.isError])).toEqual([
      ["call_report", "failed", "cancelled", true],
      ["call_after", "refused", "cancelled", true],
    ]);
    expect((await store.getSession(result.sessionId))?.status).toBe("cancelled");

    const resumed = await harness.resume(result.sessionId);
    expect(resumed).toMatchObject({
      status: "completed",
      text: "The report was stopped; ask again when you need it.",
    });
    expect(model.requests).toHaveLength(2);
    expect(
      promptResults(model.requests[1]?.prompt ?? []).map((r) => [r.callId, r.isError]),
    ).toEqual([
      ["call_report", true],
      ["call_after", true],
    ]);
    // Nothing of the cancelled batch ran again on resume.
    expect(desk.runs).toEqual([]);
  });
});
