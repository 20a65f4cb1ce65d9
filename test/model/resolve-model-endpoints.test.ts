import { describe, expect, it, onTestFinished } from "vitest";
import { requestTurn } from "../../src/loop/request-turn.js";
import { streamTurn } from "../../src/loop/stream-turn.js";
import { resolveModel } from "../../src/model/resolve-model.js";
import {
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../support/fake-providers/fake-anthropic.js";
import { startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import { modelAt, TOOLS, userPrompt } from "./model-fixtures.js";

const options = { prompt: userPrompt("hi"), tools: TOOLS, signal: undefined };

describe("where resolved models send their requests", () => {
  it("openai-compatible without a key sends no Authorization header, as local servers expect", async () => {
    const fake = await startFakeOpenAI([{ text: "Hello from a local server." }], { apiKey: null });
    onTestFinished(() => fake.close());
    const model = await resolveModel("ollama:llama3.1", { baseUrl: `${fake.url}/v1`, env: {} });
    const turn = await streamTurn(model, options);

    expect(turn.text).toBe("Hello from a local server.");
    expect(fake.requests[0]?.headers).not.toHaveProperty("authorization");
    expect(fake.requests[0]?.body).toMatchObject({ model: "llama3.1" });
  });

  it("anthropic accepts a base URL without /v1, as Anthropic's own tools do", async () => {
    const fake = await startFakeAnthropic([{ text: "sent" }]);
    onTestFinished(() => fake.close());
    const model = await resolveModel("anthropic:claude-sonnet-4-5", {
      baseUrl: fake.url,
      apiKey: FAKE_ANTHROPIC_KEY,
      env: {},
    });
    const outcome = await requestTurn(model, options, { maxRetries: 0 });

    expect(fake.requests[0]?.path).toBe("/v1/messages");
    expect(outcome).toMatchObject({ status: "ok", turn: { text: "sent" } });
  });

  // Local servers report usage in a stream only when asked (`stream_options.include_usage`);
  // without it token limits would count 0.
  it("openai-compatible streaming reports token usage", async () => {
    const fake = await startFakeOpenAI([
      { text: "ok", usage: { inputTokens: 40, outputTokens: 8 } },
    ]);
    onTestFinished(() => fake.close());
    const model = await modelAt("openai-compatible:qwen2.5-coder", fake.url);
    const turn = await streamTurn(model, options);

    expect([turn.inputTokens, turn.outputTokens]).toEqual([40, 8]);
  });
});
