import { describe, expect, it, onTestFinished } from "vitest";
import { isDocketError } from "../../src/errors/docket-error.js";
import { requestTurn } from "../../src/loop/request-turn.js";
import { classifyModelError } from "../../src/model/model-failure.js";
import { resolveModel } from "../../src/model/resolve-model.js";
import { anthropicError, startFakeAnthropic } from "../support/fake-providers/fake-anthropic.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";
import { closedPortUrl } from "../support/fake-providers/fake-server.js";
import { modelAt, recordSleeps, TOOLS, userPrompt } from "./model-fixtures.js";

const MODEL = "anthropic:claude-sonnet-4-5";
const options = { prompt: userPrompt("Weather in Oslo?"), tools: TOOLS, signal: undefined };

async function fakeWith(script: ScriptItem[], apiKey?: string) {
  const fake = await startFakeAnthropic(script);
  onTestFinished(() => fake.close());
  return { fake, model: await modelAt(MODEL, fake.url, apiKey) };
}

const serverError = (
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
) => ({
  error: { status, body: anthropicError(type, message), ...(headers ? { headers } : {}) },
});

describe("anthropic provider errors through requestTurn", () => {
  it("refuses to build a model without a key, with a DocketError the loop classifies", async () => {
    const error = await resolveModel(MODEL, { env: {} }).catch((caught: unknown) => caught);

    expect(isDocketError(error, "model_key_missing")).toBe(true);
    expect((error as Error).message).toContain("ANTHROPIC_API_KEY");
    expect(classifyModelError(error)).toMatchObject({ kind: "key_missing", retryable: false });
  });

  it("retries an unreachable endpoint a bounded number of times, then reports it", async () => {
    const model = await modelAt(MODEL, await closedPortUrl());
    const { sleep, delays } = recordSleeps();
    const outcome = await requestTurn(model, options, { sleep, maxRetries: 2 });

    expect(outcome).toMatchObject({
      status: "failed",
      attempts: 3,
      failure: { kind: "unreachable", retryable: true },
    });
    expect(outcome.status === "failed" && outcome.failure.message).toContain(
      "could not be reached",
    );
    expect(delays).toHaveLength(2);
  });

  it("does not retry a wrong key (401 authentication_error)", async () => {
    const { fake, model } = await fakeWith([{ text: "never sent" }], "sk-ant-wrong");
    const { sleep, delays } = recordSleeps();
    const outcome = await requestTurn(model, options, { sleep });

    expect(outcome).toMatchObject({
      status: "failed",
      attempts: 1,
      failure: { kind: "unauthorised", retryable: false },
    });
    expect(outcome.status === "failed" && outcome.failure.message).toContain("HTTP 401");
    expect(fake.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("waits exactly as long as retry-after says on a 429, then succeeds", async () => {
    const { fake, model } = await fakeWith([
      serverError(
        429,
        "rate_limit_error",
        "Number of request tokens has exceeded your per-minute rate limit",
        {
          "retry-after": "7",
        },
      ),
      { text: "Mild." },
    ]);
    const { sleep, delays } = recordSleeps();
    const outcome = await requestTurn(model, options, { sleep });

    expect(outcome).toMatchObject({ status: "ok", attempts: 2, turn: { text: "Mild." } });
    expect(delays).toEqual([7000]);
    expect(fake.requests).toHaveLength(2);
  });

  it("retries 500 api_error a bounded number of times, then fails as a server error", async () => {
    const failure = serverError(500, "api_error", "Internal server error");
    const { fake, model } = await fakeWith([
      failure,
      failure,
      failure,
      failure,
      { text: "too late" },
    ]);
    const { sleep, delays } = recordSleeps();
    const outcome = await requestTurn(model, options, { sleep, maxRetries: 3, baseDelayMs: 100 });

    expect(outcome).toMatchObject({
      status: "failed",
      attempts: 4,
      failure: { kind: "server_error" },
    });
    expect(fake.requests).toHaveLength(4);
    // Exponential backoff with ±20 % jitter: about 100, 200, 400 ms.
    expect(delays).toHaveLength(3);
    delays.forEach((delay, index) => {
      expect(delay).toBeGreaterThanOrEqual(0.8 * 100 * 2 ** index);
      expect(delay).toBeLessThanOrEqual(1.2 * 100 * 2 ** index);
    });
  });

  it("retries 529 overloaded_error and then succeeds", async () => {
    const { model } = await fakeWith([
      serverError(529, "overloaded_error", "Overloaded"),
      { text: "Back." },
    ]);
    const { sleep } = recordSleeps();
    const outcome = await requestTurn(model, options, { sleep });

    expect(outcome).toMatchObject({ status: "ok", attempts: 2, turn: { text: "Back." } });
  });

  it("reports a prompt that is too long as context_length, without retrying", async () => {
    const { fake, model } = await fakeWith([
      serverError(
        400,
        "invalid_request_error",
        "prompt is too long: 201234 tokens > 200000 maximum",
      ),
    ]);
    const { sleep } = recordSleeps();
    const outcome = await requestTurn(model, options, { sleep });

    expect(outcome).toMatchObject({
      status: "failed",
      attempts: 1,
      failure: { kind: "context_length", retryable: false },
    });
    expect(fake.requests).toHaveLength(1);
  });
});
