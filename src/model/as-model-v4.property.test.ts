import type { LanguageModelV3, LanguageModelV3CallOptions } from "@ai-sdk/provider";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toPrompt } from "../loop/to-prompt.js";
import type { TranscriptMessage } from "../loop/transcript-message.js";
import { asModelV4 } from "./as-model-v4.js";
import { createScriptedModelV3 } from "./scripted-model.js";

const text = fc.string({ maxLength: 40 });
const call = fc.record({
  id: fc.string({ minLength: 1, maxLength: 8 }),
  name: text,
  arguments: text,
});
const result = fc.record({
  callId: fc.string({ minLength: 1, maxLength: 8 }),
  name: text,
  status: fc.constantFrom("ok", "refused", "failed", "awaiting_approval"),
  text,
  isError: fc.boolean(),
});
const message: fc.Arbitrary<TranscriptMessage> = fc.oneof(
  fc.record({ role: fc.constant("system" as const), text }),
  fc.record({ role: fc.constant("user" as const), text }),
  fc.record({
    role: fc.constant("assistant" as const),
    text,
    toolCalls: fc.array(call, { maxLength: 3 }),
  }),
  fc.record({
    role: fc.constant("tool" as const),
    results: fc.array(result, { minLength: 1, maxLength: 3 }),
  }),
);

describe("asModelV4 on what docket sends", () => {
  it("hands a V3 model every message and part of any transcript, unchanged (docket sends no files)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 8 }), async (messages) => {
        const seen: LanguageModelV3CallOptions[] = [];
        const inner = createScriptedModelV3({ source: "p", turns: [] });
        const recording: LanguageModelV3 = {
          ...inner,
          async doGenerate(options) {
            seen.push(options);
            throw new Error("recorded");
          },
        };
        const prompt = toPrompt(messages);
        await Promise.resolve(asModelV4(recording).doGenerate({ prompt, reasoning: "low" })).catch(
          () => undefined,
        );
        expect(seen[0]?.prompt).toEqual(prompt);
        expect(seen[0] && "reasoning" in seen[0]).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
