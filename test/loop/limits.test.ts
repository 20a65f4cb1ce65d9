import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHarness } from "../../src/loop/create-harness.js";
import type { HarnessLimits } from "../../src/loop/harness-options.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import type { ScriptedTurn } from "../../src/model/model-script.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { deskTools } from "./support/desk-tools.js";
import { holdFirstRequest } from "./support/held-model.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";
import { expectWholeBatches } from "./support/whole-batches.js";

const lookup = (id: string) => call(id, "get_order", { order_id: "SU-1" });

/** A read that takes a while, to spend the run's wall-clock budget. */
const slowTool = defineTool({
  name: "slow_lookup",
  description: "A lookup that takes 80 ms.",
  input: z.object({}),
  writes: false,
  // It honours its signal, so a deadline that stops it leaves nothing running after the test.
  handler: async (_args, ctx) => {
    await sleep(80, undefined, { signal: ctx.signal });
    return "found";
  },
});

async function runWith(limits: HarnessLimits, turns: ScriptedTurn[]) {
  const { store } = await tempStore();
  const model = createScriptedModel(scriptOf(turns));
  const desk = deskTools();
  const harness = createHarness({ model, tools: [...desk.tools, slowTool], store, limits });
  const result = await harness.run("Check my orders.");
  return { store, model, harness, runs: desk.runs, result };
}

function toolResults(messages: TranscriptMessage[]) {
  return messages.flatMap((m) => (m.role === "tool" ? m.results : []));
}

describe("run limits", () => {
  it("stops at maxTurns after whole batches, and a resume continues the session", async () => {
    const { store, model, harness, result } = await runWith({ maxTurns: 2 }, [
      turn("One.", lookup("c1")),
      turn("Two.", lookup("c2")),
      turn("Three.", lookup("c3")),
      turn("Done."),
    ]);

    expect(result.status).toBe("limit_reached");
    expect(result.text).toBe("The run stopped at its limit of 2 model turns (limits.maxTurns).");
    expect(model.requests).toHaveLength(2);
    const saved = await expectWholeBatches(store, result.sessionId);
    expect(toolResults(saved).map((r) => [r.callId, r.status])).toEqual([
      ["c1", "ok"],
      ["c2", "ok"],
    ]);
    // A limit is not a failure: the session stays active and the next run picks it up.
    expect((await store.getSession(result.sessionId))?.status).toBe("active");
    const resumed = await harness.resume(result.sessionId);
    expect(resumed).toMatchObject({ status: "completed", text: "Done." });
  });

  it("refuses a whole batch that would pass maxToolCallsPerRun, runs none of it, and stops", async () => {
    const { store, runs, result } = await runWith({ maxToolCallsPerRun: 3 }, [
      turn("Two first.", lookup("c1"), lookup("c2")),
      turn("Two more.", lookup("c3"), lookup("c4")),
      turn("Done."),
    ]);

    expect(result.status).toBe("limit_reached");
    expect(result.text).toContain("limits.maxToolCallsPerRun");
    expect(runs).toEqual(["get_order:c1", "get_order:c2"]);
    const saved = await expectWholeBatches(store, result.sessionId);
    expect(toolResults(saved).map((r) => [r.callId, r.status, r.reason ?? null])).toEqual([
      ["c1", "ok", null],
      ["c2", "ok", null],
      ["c3", "refused", "limit_exceeded"],
      ["c4", "refused", "limit_exceeded"],
    ]);
  });

  // Bug (src/loop/run-loop.ts): a reply over limits.maxToolCallsPerBatch is refused call by call
  // (limit_exceeded) but the loop then asks the model again and the run ends "completed"; the
  // spec says reaching any limit ends the run with limit_reached and a message naming it.
  it("ends the run at maxToolCallsPerBatch, naming the limit, with none of the batch run", async () => {
    const { store, runs, model, result } = await runWith({ maxToolCallsPerBatch: 2 }, [
      turn("Three at once.", lookup("c1"), lookup("c2"), lookup("c3")),
      turn("Done."),
    ]);

    expect(runs).toEqual([]);
    const saved = await expectWholeBatches(store, result.sessionId);
    expect(toolResults(saved).map((r) => r.reason)).toEqual([
      "limit_exceeded",
      "limit_exceeded",
      "limit_exceeded",
    ]);
    expect(model.requests).toHaveLength(1);
    expect(result.status).toBe("limit_reached");
    expect(result.text).toContain("limits.maxToolCallsPerBatch");
  });

  it("stops at maxTokensPerRun, counted from the provider's usage", async () => {
    const { store, model, result } = await runWith({ maxTokensPerRun: 150 }, [
      { ...turn("Looking.", lookup("c1")), usage: { input: 100, output: 60 } },
      turn("Done."),
    ]);

    expect(result).toMatchObject({
      status: "limit_reached",
      text: "The run stopped at its limit of 150 tokens (limits.maxTokensPerRun).",
      usage: { inputTokens: 100, outputTokens: 60 },
    });
    expect(model.requests).toHaveLength(1);
    // The batch the over-budget turn asked for still ran and was saved whole.
    const saved = await expectWholeBatches(store, result.sessionId);
    expect(toolResults(saved).map((r) => r.status)).toEqual(["ok"]);
  });

  it("stops at maxRunMs, after the batch in progress is saved whole", async () => {
    const { store, model, result } = await runWith({ maxRunMs: 50 }, [
      turn("Slow.", call("s1", "slow_lookup"), lookup("c1")),
      turn("Done."),
    ]);

    expect(result.status).toBe("limit_reached");
    expect(result.text).toContain("(limits.maxRunMs)");
    expect(model.requests).toHaveLength(1);
    // Whatever the calls' outcomes, both were answered and saved in one unit.
    const saved = await expectWholeBatches(store, result.sessionId);
    expect(toolResults(saved).map((r) => r.callId)).toEqual(["s1", "c1"]);
  });

  // Bug (src/loop/run-loop.ts): maxRunMs is only compared between turns, so a model request (or a
  // handler) that hangs keeps the run alive for ever; the deadline should abort what is in flight
  // and end the run with limit_reached.
  it("ends a run whose model request hangs at maxRunMs", async () => {
    const { store } = await tempStore();
    const held = holdFirstRequest(createScriptedModel(scriptOf([turn("Done.")])));
    const harness = createHarness({ model: held.model, store, limits: { maxRunMs: 100 } });
    const controller = new AbortController();
    const running = harness.run("Hello?", { signal: controller.signal });
    try {
      const outcome = await Promise.race([running, sleep(1_500).then(() => "still running")]);
      expect(outcome).toMatchObject({ status: "limit_reached" });
      expect(held.signal()?.aborted).toBe(true);
    } finally {
      // Let a run the deadline did not stop end before its store is closed.
      controller.abort();
      await running;
    }
  });
});
