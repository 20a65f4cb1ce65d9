import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel, createScriptedModelV3 } from "../../src/model/scripted-model.js";
import { defineTool } from "../../src/tool/define-tool.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A V4 model that streams the given parts for each request, in turn. */
function streamingModel(turns: LanguageModelV4StreamPart[][]) {
  const requests: LanguageModelV4CallOptions[] = [];
  const model: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: "test",
    modelId: "parts",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("docket streams")),
    async doStream(options) {
      requests.push(options);
      const parts = turns[requests.length - 1] ?? [];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return { model, requests };
}

function echoTool() {
  const ran: string[] = [];
  const tool = defineTool({
    name: "echo",
    description: "Echo.",
    input: z.object({ text: z.string() }),
    writes: false,
    handler: ({ text }) => {
      ran.push(text);
      return text;
    },
  });
  return { tool, ran };
}

const callParts = (id: string): LanguageModelV4StreamPart[] => [
  { type: "tool-input-start", id, toolName: "echo" },
  { type: "tool-input-delta", id, delta: '{"text":"hi"}' },
  { type: "tool-input-end", id },
  { type: "tool-call", toolCallId: id, toolName: "echo", input: '{"text":"hi"}' },
];

describe("LanguageModelV4 turns in the loop", () => {
  it("reads past ping, custom and reasoning-file parts: the turn is its text and its calls", async () => {
    const { tool, ran } = echoTool();
    const { model } = streamingModel([
      [
        { type: "stream-start", warnings: [] },
        { type: "ping" },
        { type: "custom", kind: "test.marker" },
        { type: "reasoning-file", mediaType: "image/png", data: { type: "data", data: "AAAA" } },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Echoing." },
        { type: "text-end", id: "t" },
        ...callParts("c1"),
        { type: "finish", usage, finishReason: { unified: "tool-calls", raw: "tool_use" } },
      ],
      [
        { type: "ping" },
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Done." },
        { type: "text-end", id: "t" },
        { type: "finish", usage, finishReason: { unified: "stop", raw: "end_turn" } },
      ],
    ]);
    const harness = createHarness({ model, tools: [tool], store: ":memory:" });
    // A listener, so the turn streams: the parts under test come only over doStream.
    const result = await harness.run("echo hi", { onEvent: () => {} });
    await harness.close();

    expect(result).toMatchObject({ status: "completed", text: "Done." });
    expect(ran).toEqual(["hi"]);
  });

  it("an interrupted reply's calls are not run, and the run says why", async () => {
    const { tool, ran } = echoTool();
    const { model, requests } = streamingModel([
      [
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Let me" },
        ...callParts("c1"),
        ...callParts("c2"),
        { type: "finish", usage, finishReason: { unified: "interrupted", raw: undefined } },
      ],
    ]);
    const harness = createHarness({ model, tools: [tool], store: ":memory:" });
    // A listener, so the turn streams: the parts under test come only over doStream.
    const result = await harness.run("echo hi", { onEvent: () => {} });
    const transcript = await (await harness.store()).loadTranscript(result.sessionId);
    await harness.close();

    expect(ran).toEqual([]);
    expect(requests).toHaveLength(1);
    expect(result.status).toBe("failed");
    expect(result.text).toContain("interrupted");
    expect(result.text).toContain("its 2 tool calls were not run");
    expect(result.error).toBe(result.text);
    // Nothing of the cut-off reply is kept: a resume asks the model again.
    expect(transcript.map((m) => m.role)).toEqual(["user"]);
  });

  it("sends the reasoning option to a V4 model on every turn, and none to a V3 model", async () => {
    const script = {
      source: "reasoning",
      turns: [
        { toolCalls: [{ id: "c1", name: "echo", arguments: '{"text":"a"}' }] },
        { text: "ok", toolCalls: [] },
      ],
    };
    const v4 = createScriptedModel(script);
    const v3 = createScriptedModelV3(script);
    for (const model of [v4, v3]) {
      const harness = createHarness({
        model,
        tools: [echoTool().tool],
        store: ":memory:",
        reasoning: "high",
      });
      expect((await harness.run("go")).status).toBe("completed");
      await harness.close();
    }
    expect(v4.requests.map((r) => r.reasoning)).toEqual(["high", "high"]);
    expect(v3.requests.map((r) => "reasoning" in r)).toEqual([false, false]);
  });
});
