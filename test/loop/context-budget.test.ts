import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHarness } from "../../src/loop/create-harness.js";
import { elisionMarker } from "../../src/loop/fit-context.js";
import type { HarnessLimits } from "../../src/loop/harness-options.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { surfaceCost } from "../../src/tool/tool-surface.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";
import { promptResults } from "./support/transcript-pairs.js";

/** Output of a chosen size: a letter repeated, then a tail that capping must keep. */
const dumpTool = defineTool({
  name: "dump_log",
  description: "Print a log file.",
  input: z.object({ letter: z.string().length(1), bytes: z.number().int() }),
  writes: false,
  handler: ({ letter, bytes }) => `${letter.repeat(bytes - 4)}TAIL`,
});

// The menu goes with every request, so its bytes come off the budget first.
const MENU_BYTES = surfaceCost([dumpTool]).menuBytes;

const dump = (id: string, letter: string, bytes: number) => call(id, "dump_log", { letter, bytes });

async function runWith(limits: HarnessLimits, calls: ReturnType<typeof dump>[]) {
  const { store } = await tempStore();
  const model = createScriptedModel(
    scriptOf([...calls.map((c, i) => turn(`Step ${i + 1}.`, c)), turn("Done.")]),
  );
  const harness = createHarness({ model, tools: [dumpTool], store, limits });
  const result = await harness.run("Show me the logs.");
  expect(result.status).toBe("completed");
  return { store, model, result };
}

describe("context shaping", () => {
  it("caps each result at maxResultBytes before it enters the transcript, keeping head and tail", async () => {
    const { store, model, result } = await runWith({ maxResultBytes: 1024 }, [
      dump("call_big", "a", 50_000),
    ]);

    const saved = (await store.loadTranscript(result.sessionId)).map(
      (m) => m.content as TranscriptMessage,
    );
    const stored = saved.flatMap((m) => (m.role === "tool" ? m.results : []))[0];
    expect(Buffer.byteLength(stored?.text ?? "")).toBeLessThanOrEqual(1024);
    expect(stored?.text).toMatch(/^a+\n\[… [\d,]+ bytes cut …\]\na+TAIL$/);
    // The model reads exactly the capped text.
    expect(promptResults(model.requests[1]?.prompt ?? [])[0]?.text).toBe(stored?.text);
  });

  it("elides the oldest tool outputs first, only as far as the budget needs", async () => {
    const { store, model, result } = await runWith({ contextBytes: 4_500 + MENU_BYTES }, [
      dump("call_1", "a", 2_000),
      dump("call_2", "b", 2_000),
      dump("call_3", "c", 2_000),
    ]);

    const texts = model.requests.map((r) => promptResults(r.prompt).map((p) => p.text));
    const full = (letter: string) => `${letter.repeat(1_996)}TAIL`;
    // Two outputs fit; the third pushes the oldest out of what is sent.
    expect(texts[2]).toEqual([full("a"), full("b")]);
    expect(texts[3]).toEqual([elisionMarker(2_000), full("b"), full("c")]);
    // Only what is sent is shaped: the store keeps every output.
    const saved = (await store.loadTranscript(result.sessionId)).map(
      (m) => m.content as TranscriptMessage,
    );
    expect(saved.flatMap((m) => (m.role === "tool" ? m.results.map((r) => r.text) : []))).toEqual([
      full("a"),
      full("b"),
      full("c"),
    ]);
  });

  it("counts the tool menu against the budget: the same outputs that fit without it are elided", async () => {
    // The two outputs and their words take about 4,100 bytes: under 4,150, over 4,150 less the menu.
    const { model } = await runWith({ contextBytes: 4_150 }, [
      dump("call_1", "a", 2_000),
      dump("call_2", "b", 2_000),
    ]);
    const texts = model.requests.map((r) => promptResults(r.prompt).map((p) => p.text));
    expect(MENU_BYTES).toBeGreaterThan(100);
    expect(texts[2]?.[0]).toBe(elisionMarker(2_000));
  });

  it("never elides the latest request and its results, even over budget", async () => {
    const { model } = await runWith({ contextBytes: 100 }, [
      dump("call_1", "a", 2_000),
      dump("call_2", "b", 3_000),
    ]);

    const last = model.requests.at(-1)?.prompt ?? [];
    expect(promptResults(last).map((r) => r.text)).toEqual([
      elisionMarker(2_000),
      `${"b".repeat(2_996)}TAIL`,
    ]);
    // Words and requests are never elided: the user's, the assistant's, and every call.
    expect(last.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "tool"]);
    expect(last[0]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Show me the logs." }],
    });
    expect(last[3]).toEqual({
      role: "assistant",
      content: [
        { type: "text", text: "Step 2." },
        {
          type: "tool-call",
          toolCallId: "call_2",
          toolName: "dump_log",
          input: { letter: "b", bytes: 3_000 },
        },
      ],
    });
  });
});
