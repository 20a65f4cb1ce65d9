import { APICallError, type LanguageModelV4 } from "@ai-sdk/provider";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ScriptedTurn } from "../model/model-script.js";
import { createScriptedModel } from "../model/scripted-model.js";
import { generatesTurns, generateTurn } from "./generate-turn.js";
import { requestTurn } from "./request-turn.js";
import { streamTurn } from "./stream-turn.js";

const call = fc.record({
  id: fc.string({ minLength: 1, maxLength: 12 }),
  name: fc.string({ minLength: 1, maxLength: 12 }),
  // Any text, JSON or not: the argument text is kept as the model wrote it on both paths.
  arguments: fc.oneof(fc.string(), fc.json(), fc.constant('{"order_id": ')),
});

const scriptedTurn: fc.Arbitrary<ScriptedTurn> = fc.record(
  {
    text: fc.string(),
    toolCalls: fc.array(call, { maxLength: 4 }),
    usage: fc.record({ input: fc.nat(), output: fc.nat() }),
  },
  { requiredKeys: ["toolCalls"] },
);

const turnOptions = { prompt: [], tools: [], signal: undefined };

/** A model whose doGenerate does what `answer` says, and that cannot stream. */
function generating(answer: (signal: AbortSignal | undefined) => Promise<never>): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId: "whole",
    supportedUrls: {},
    doGenerate: (options) => answer(options.abortSignal),
    doStream: () => Promise.reject(new Error("this model answers whole")),
  };
}

describe("generateTurn", () => {
  it("gives the turn streamTurn collects from the same scripted reply", async () => {
    await fc.assert(
      fc.asyncProperty(scriptedTurn, async (turn) => {
        const script = { turns: [turn], source: "property" };
        const whole = await generateTurn(createScriptedModel(script), turnOptions);
        const streamed = await streamTurn(createScriptedModel(script), turnOptions);
        expect(whole).toEqual(streamed);
        expect(whole.toolCalls.map((c) => c.arguments)).toEqual(
          turn.toolCalls.map((c) => c.arguments),
        );
      }),
      { numRuns: 200 },
    );
  });

  it("is what requestTurn uses in generate mode, and streaming otherwise", async () => {
    const script = { turns: [{ text: "Hello there.", toolCalls: [] }], source: "inline" };
    const model = createScriptedModel(script);
    const texts: string[] = [];
    const onText = (delta: string) => texts.push(delta);
    expect(await requestTurn(model, { ...turnOptions, mode: "generate", onText })).toMatchObject({
      status: "ok",
      turn: { text: "Hello there.", finishReason: "stop" },
    });
    expect(texts).toEqual([]);
    expect(await requestTurn(model, { ...turnOptions, onText })).toMatchObject({ status: "ok" });
    expect(texts.join("")).toBe("Hello there.");
  });

  it("streams a model that has no doGenerate, even in generate mode", async () => {
    const inner = createScriptedModel({ turns: [{ text: "Hi.", toolCalls: [] }], source: "s" });
    const streamOnly = { ...inner, doGenerate: undefined } as unknown as LanguageModelV4;
    expect(generatesTurns(streamOnly)).toBe(false);
    expect(generatesTurns(inner)).toBe(true);
    const outcome = await requestTurn(streamOnly, { ...turnOptions, mode: "generate" });
    expect(outcome).toMatchObject({ status: "ok", turn: { text: "Hi." } });
  });

  it("retries a doGenerate that throws a server error, then explains it", async () => {
    let asked = 0;
    const model = generating(() => {
      asked += 1;
      throw new APICallError({
        message: "The server had an error",
        url: "http://127.0.0.1/v1/chat/completions",
        requestBodyValues: {},
        statusCode: 503,
        isRetryable: true,
      });
    });
    const waits: number[] = [];
    const outcome = await requestTurn(
      model,
      { ...turnOptions, mode: "generate" },
      { maxRetries: 2, sleep: async (ms) => void waits.push(ms) },
    );
    expect(outcome).toMatchObject({
      status: "failed",
      attempts: 3,
      failure: {
        kind: "server_error",
        message: expect.stringContaining("had an error (HTTP 503)"),
      },
    });
    expect(asked).toBe(3);
    expect(waits).toHaveLength(2);
  });

  it("fails at once, with a message and no stack, when doGenerate throws a plain error", async () => {
    let asked = 0;
    const model = generating(() => {
      asked += 1;
      throw new TypeError("cannot read properties of undefined (reading 'choices')");
    });
    const outcome = await requestTurn(model, { ...turnOptions, mode: "generate" });
    expect(outcome).toMatchObject({ status: "failed", attempts: 1 });
    expect(outcome.status === "failed" && outcome.failure.message).not.toMatch(/\n\s+at /);
    expect(asked).toBe(1);
  });

  it("ends a turn cancelled mid-request, without retrying it", async () => {
    let asked = 0;
    const model = generating(
      (signal) =>
        new Promise<never>((_, reject) => {
          asked += 1;
          signal?.addEventListener("abort", () =>
            reject(new DOMException("This operation was aborted", "AbortError")),
          );
        }),
    );
    const controller = new AbortController();
    const pending = requestTurn(model, {
      ...turnOptions,
      signal: controller.signal,
      mode: "generate",
    });
    setTimeout(() => controller.abort(new Error("cancelled by the test")), 10);
    expect(await pending).toMatchObject({ status: "failed", failure: { kind: "cancelled" } });
    expect(asked).toBe(1);
  });
});
