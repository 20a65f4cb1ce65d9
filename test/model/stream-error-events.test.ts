import { describe, expect, it, onTestFinished } from "vitest";
import { requestTurn } from "../../src/loop/request-turn.js";
import { anthropicError, startFakeAnthropic } from "../support/fake-providers/fake-anthropic.js";
import { openaiError, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";
import { modelAt, recordSleeps, TOOLS, userPrompt } from "./model-fixtures.js";

/*
 * Providers can fail part-way through a streamed response: Anthropic sends an `error` event
 * after `message_start`, OpenAI-style servers send a `{"error": {...}}` frame. The provider
 * packages hand these to docket as the raw payload object, not an Error.
 *
 * These tests keep such payloads classified by their type (overloaded and server errors retried,
 * with the provider's own words), and keep the empty opening text delta of a Chat Completions
 * stream from counting as text the reader has seen.
 */

const options = { prompt: userPrompt("Weather in Oslo?"), tools: TOOLS, signal: undefined };
const overloaded = anthropicError("overloaded_error", "Overloaded");
const openaiServerError = openaiError(
  "The server had an error while processing your request.",
  "server_error",
);

async function anthropicWith(script: ScriptItem[]) {
  const fake = await startFakeAnthropic(script);
  onTestFinished(() => fake.close());
  return modelAt("anthropic:claude-sonnet-4-5", fake.url);
}

async function chatWith(modelString: string, script: ScriptItem[]) {
  const fake = await startFakeOpenAI(script);
  onTestFinished(() => fake.close());
  return modelAt(modelString, fake.url);
}

describe("errors inside a stream", () => {
  it("openai: retries an error frame that arrives before any output (the package raises it as a 500)", async () => {
    const model = await chatWith("openai:gpt-4o", [
      { streamError: openaiServerError },
      { text: "Back." },
    ]);
    const { sleep } = recordSleeps();

    expect(await requestTurn(model, options, { sleep })).toMatchObject({
      status: "ok",
      attempts: 2,
    });
  });

  it("anthropic: retries an overloaded_error event that arrives before any text", async () => {
    const model = await anthropicWith([{ streamError: overloaded }, { text: "Back." }]);
    const { sleep } = recordSleeps();

    expect(await requestTurn(model, options, { sleep })).toMatchObject({
      status: "ok",
      attempts: 2,
    });
  });

  it("anthropic: explains an error event after text as a server error, in the provider's words", async () => {
    const model = await anthropicWith([{ text: "Partly", streamError: overloaded }]);
    const outcome = await requestTurn(model, options, { sleep: recordSleeps().sleep });

    // Not retried: the reader has already seen text. But the failure must say what happened.
    expect(outcome).toMatchObject({
      status: "failed",
      attempts: 1,
      failure: { kind: "server_error" },
    });
    expect(outcome.status === "failed" && outcome.failure.message).toContain("Overloaded");
  });

  it("openai: explains an error frame after text in the provider's words", async () => {
    const model = await chatWith("openai:gpt-4o", [
      { text: "Partly", streamError: openaiServerError },
    ]);
    const outcome = await requestTurn(model, options, { sleep: recordSleeps().sleep });

    expect(outcome.status === "failed" && outcome.failure.message).toContain(
      "The server had an error",
    );
  });

  it("openai-compatible: retries an error frame that arrives before any text", async () => {
    const model = await chatWith("openai-compatible:qwen2.5-coder", [
      { streamError: openaiServerError },
      { text: "Back." },
    ]);
    const { sleep } = recordSleeps();

    expect(await requestTurn(model, options, { sleep })).toMatchObject({
      status: "ok",
      attempts: 2,
    });
  });
});
