import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

/** A command that takes a while to stop once told to, as a killed process does. */
function slowToStop(stopAfterMs: number) {
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const tool = defineTool({
    name: "build_report",
    description: "Build a long report.",
    input: z.object({}),
    writes: false,
    handler: async (_args, ctx) => {
      started();
      await new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
      await new Promise((resolve) => setTimeout(resolve, stopAfterMs));
      return "stopped, eventually";
    },
  });
  return { tool, running };
}

describe("a handler still ending when its run is cancelled", () => {
  it("has its late completion recorded before the run returns, so closing the store loses nothing", async () => {
    const { store, url } = await tempStore();
    const slow = slowToStop(60);
    const model = createScriptedModel(
      scriptOf([turn("Building it.", call("call_report", "build_report")), turn("Done.")]),
    );
    const errors: unknown[] = [];
    const harness = createHarness({ model, tools: [slow.tool], store });
    const controller = new AbortController();
    const running = harness.run("Build the report.", { signal: controller.signal });
    await slow.running;
    controller.abort(new Error("user pressed Ctrl-C"));
    const result = await running;
    expect(result).toMatchObject({ status: "cancelled" });
    // What the CLI does next: close the store. Nothing may arrive after that.
    const stderr = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      errors.push(String(chunk));
      return stderr(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      await store.close();
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      process.stderr.write = stderr;
    }
    expect(errors.filter((line) => String(line).includes("could not be recorded"))).toEqual([]);

    const reopened = await openStore(url);
    try {
      const events = await reopened.listEvents({ callId: "call_report" });
      expect(events.map((e) => e.type)).toEqual([
        "requested",
        "decided",
        "started",
        "finished",
        "late_completion",
      ]);
      expect(events.at(-1)?.event).toMatchObject({ outcome: "returned" });
      expect(events.find((e) => e.type === "finished")?.event).toMatchObject({
        status: "failed",
        reason: "cancelled",
      });
    } finally {
      await reopened.close();
    }
  });
});
