import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { StreamError, streamTurn } from "./stream-turn.js";

/** A model whose stream gives `parts` and counts how often its source was cancelled. */
function modelOf(parts: readonly LanguageModelV4StreamPart[]) {
  const seen = { cancelled: 0 };
  const model = {
    specificationVersion: "v4",
    provider: "test",
    modelId: "parts",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("stream only")),
    doStream: async () => {
      let next = 0;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        pull(controller) {
          const part = parts[next];
          next += 1;
          if (part === undefined) controller.close();
          else controller.enqueue(part);
        },
        cancel() {
          seen.cancelled += 1;
        },
      });
      return { stream };
    },
  } as unknown as LanguageModelV4;
  return { model, seen };
}

const finish = {
  type: "finish",
  finishReason: { unified: "stop", raw: "stop" },
  usage: {
    inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 2, text: 2, reasoning: 0 },
  },
} as unknown as LanguageModelV4StreamPart;

describe("streamTurn", () => {
  it("reads a stream to its end and leaves it alone", async () => {
    const { model, seen } = modelOf([
      { type: "text-delta", id: "t", delta: "Hel" },
      { type: "text-delta", id: "t", delta: "lo" },
      finish,
    ]);
    const turn = await streamTurn(model, { prompt: [], tools: [], signal: undefined });
    expect(turn).toMatchObject({ text: "Hello", inputTokens: 3, outputTokens: 2 });
    expect(seen.cancelled).toBe(0);
  });

  it("cancels the provider's stream when it stops early on an error part", async () => {
    const { model, seen } = modelOf([
      { type: "text-delta", id: "t", delta: "Hel" },
      { type: "error", error: new Error("overloaded") },
      { type: "text-delta", id: "t", delta: "never read" },
      finish,
    ]);
    await expect(
      streamTurn(model, { prompt: [], tools: [], signal: undefined }),
    ).rejects.toBeInstanceOf(StreamError);
    expect(seen.cancelled).toBe(1);
  });
});
