import { describe, expect, it, onTestFinished } from "vitest";
import { requestTurn } from "../../src/loop/request-turn.js";
import { anthropicError, startFakeAnthropic } from "../support/fake-providers/fake-anthropic.js";
import { startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import { modelAt, recordSleeps, TOOLS, userPrompt } from "./model-fixtures.js";

/*
 * Context-window errors come in several wordings, and classifyModelError recognises them by
 * pattern. The canonical ones ("prompt is too long", "maximum context length") are covered in the
 * provider error tests; these are real wordings it misses.
 *
 * Recognised as context_length, docket tells the user to start a new session or lower
 * limits.context_bytes instead of reporting an opaque invalid request.
 */

const options = { prompt: userPrompt("Summarise everything."), tools: TOOLS, signal: undefined };

describe("context-window errors in other wordings", () => {
  it("anthropic: input length and max_tokens exceeding the context limit is context_length", async () => {
    const fake = await startFakeAnthropic([
      {
        error: {
          status: 400,
          body: anthropicError(
            "invalid_request_error",
            "input length and `max_tokens` exceed context limit: 187654 + 64000 > 200000, decrease input length or `max_tokens` and try again",
          ),
        },
      },
    ]);
    onTestFinished(() => fake.close());
    const model = await modelAt("anthropic:claude-sonnet-4-5", fake.url);
    const outcome = await requestTurn(model, options, { sleep: recordSleeps().sleep });

    expect(outcome).toMatchObject({ status: "failed", failure: { kind: "context_length" } });
  });

  it("llamacpp: a request exceeding the available context size is context_length", async () => {
    // llama.cpp's server puts a numeric code and its own type in the OpenAI-shaped error.
    const fake = await startFakeOpenAI(
      [
        {
          error: {
            status: 400,
            body: {
              error: {
                code: 400,
                message:
                  "request (9120 tokens) exceeds the available context size (8192 tokens), try increasing it",
                type: "exceed_context_size_error",
                n_prompt_tokens: 9120,
                n_ctx: 8192,
              },
            },
          },
        },
      ],
      { apiKey: null },
    );
    onTestFinished(() => fake.close());
    const model = await modelAt("llamacpp:qwen2.5-coder", fake.url);
    const outcome = await requestTurn(model, options, { sleep: recordSleeps().sleep });

    expect(outcome).toMatchObject({ status: "failed", failure: { kind: "context_length" } });
  });
});
