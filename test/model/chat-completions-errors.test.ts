import { describe, expect, it, onTestFinished } from "vitest";
import { isDocketError } from "../../src/errors/docket-error.js";
import { requestTurn } from "../../src/loop/request-turn.js";
import { resolveModel } from "../../src/model/resolve-model.js";
import { openaiError, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";
import { closedPortUrl } from "../support/fake-providers/fake-server.js";
import {
  CHAT_COMPLETIONS_PROVIDERS,
  modelAt,
  recordSleeps,
  TOOLS,
  userPrompt,
} from "./model-fixtures.js";

const options = { prompt: userPrompt("Weather in Lima?"), tools: TOOLS, signal: undefined };

const failWith = (status: number, body: unknown, headers?: Record<string, string>): ScriptItem => ({
  error: { status, body, ...(headers ? { headers } : {}) },
});
const rateLimited = (headers: Record<string, string>) =>
  failWith(
    429,
    openaiError(
      "Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1.",
      "requests",
      "rate_limit_exceeded",
    ),
    headers,
  );

describe("openai without a key", () => {
  it("refuses to build the model, with a DocketError naming the variable", async () => {
    const error = await resolveModel("openai:gpt-4o", { env: {} }).catch(
      (caught: unknown) => caught,
    );

    expect(isDocketError(error, "model_key_missing")).toBe(true);
    expect((error as Error).message).toContain("OPENAI_API_KEY");
  });
});

describe.each(CHAT_COMPLETIONS_PROVIDERS)(
  "$provider errors through requestTurn",
  ({ model: modelString }) => {
    async function fakeWith(script: ScriptItem[], apiKey?: string) {
      const fake = await startFakeOpenAI(script);
      onTestFinished(() => fake.close());
      return { fake, model: await modelAt(modelString, fake.url, apiKey) };
    }

    it("retries an unreachable endpoint a bounded number of times, then reports it", async () => {
      const model = await modelAt(modelString, await closedPortUrl());
      const { sleep, delays } = recordSleeps();
      const outcome = await requestTurn(model, options, { sleep, maxRetries: 2 });

      expect(outcome).toMatchObject({
        status: "failed",
        attempts: 3,
        failure: { kind: "unreachable" },
      });
      expect(delays).toHaveLength(2);
    });

    it("does not retry a wrong key (401 invalid_api_key)", async () => {
      const { fake, model } = await fakeWith([{ text: "never sent" }], "sk-wrong-key-0000");
      const { sleep, delays } = recordSleeps();
      const outcome = await requestTurn(model, options, { sleep });

      expect(outcome).toMatchObject({
        status: "failed",
        attempts: 1,
        failure: { kind: "unauthorised", retryable: false },
      });
      expect(fake.requests).toHaveLength(1);
      expect(delays).toEqual([]);
    });

    it("waits exactly as long as retry-after says on a 429, then succeeds", async () => {
      const { fake, model } = await fakeWith([
        rateLimited({ "retry-after": "3" }),
        { text: "Warm." },
      ]);
      const { sleep, delays } = recordSleeps();
      const outcome = await requestTurn(model, options, { sleep });

      expect(outcome).toMatchObject({ status: "ok", attempts: 2, turn: { text: "Warm." } });
      expect(delays).toEqual([3000]);
      expect(fake.requests).toHaveLength(2);
    });

    it("prefers retry-after-ms, which is more precise, when both are sent", async () => {
      const { model } = await fakeWith([
        rateLimited({ "retry-after": "2", "retry-after-ms": "1250" }),
        { text: "Warm." },
      ]);
      const { sleep, delays } = recordSleeps();
      const outcome = await requestTurn(model, options, { sleep });

      expect(outcome.status).toBe("ok");
      expect(delays).toEqual([1250]);
    });

    it("retries 500 and 503 a bounded number of times, then fails as a server error", async () => {
      const internal = failWith(
        500,
        openaiError("The server had an error while processing your request.", "server_error"),
      );
      const unavailable = failWith(
        503,
        openaiError("The engine is currently overloaded.", "server_error"),
      );
      const { fake, model } = await fakeWith([
        internal,
        unavailable,
        internal,
        { text: "too late" },
      ]);
      const { sleep, delays } = recordSleeps();
      const outcome = await requestTurn(model, options, { sleep, maxRetries: 2 });

      expect(outcome).toMatchObject({
        status: "failed",
        attempts: 3,
        failure: { kind: "server_error" },
      });
      expect(outcome.status === "failed" && outcome.failure.message).toContain("HTTP 500");
      expect(fake.requests).toHaveLength(3);
      expect(delays).toHaveLength(2);
    });

    it("recovers when a 503 is followed by an answer", async () => {
      const { model } = await fakeWith([
        failWith(503, openaiError("The engine is currently overloaded.", "server_error")),
        { text: "Here." },
      ]);
      const { sleep } = recordSleeps();

      expect(await requestTurn(model, options, { sleep })).toMatchObject({
        status: "ok",
        attempts: 2,
      });
    });

    it("reports context_length_exceeded as context_length, without retrying", async () => {
      const { fake, model } = await fakeWith([
        failWith(
          400,
          openaiError(
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.",
            "invalid_request_error",
            "context_length_exceeded",
            "messages",
          ),
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
  },
);
