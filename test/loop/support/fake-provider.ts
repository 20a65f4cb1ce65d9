import { onTestFinished } from "vitest";
import {
  anthropicError,
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../../support/fake-providers/fake-anthropic.js";
import {
  FAKE_OPENAI_KEY,
  openaiError,
  startFakeOpenAI,
} from "../../support/fake-providers/fake-openai.js";
import type { ScriptItem } from "../../support/fake-providers/fake-script.js";
import type { FakeServer } from "../../support/fake-providers/fake-server.js";

/** How one provider is faked, named and made to fail, so a test can run against each. */
export interface ProviderCase {
  readonly provider: "anthropic" | "openai";
  /** The model string a user would write. */
  readonly model: string;
  readonly key: string;
  /** Start the provider's fake with a script; it is closed when the test finishes. */
  start(script: readonly ScriptItem[]): Promise<FakeServer>;
  readonly rateLimited: (retryAfter: string) => ScriptItem;
  readonly contextTooLong: ScriptItem;
}

async function closing(server: Promise<FakeServer>): Promise<FakeServer> {
  const fake = await server;
  onTestFinished(() => fake.close());
  return fake;
}

/** Anthropic Messages and OpenAI Chat Completions, each with its own error wordings. */
export const PROVIDERS: readonly ProviderCase[] = [
  {
    provider: "anthropic",
    model: "anthropic:claude-x",
    key: FAKE_ANTHROPIC_KEY,
    start: (script) => closing(startFakeAnthropic(script)),
    rateLimited: (retryAfter) => ({
      error: {
        status: 429,
        body: anthropicError(
          "rate_limit_error",
          "Number of request tokens has exceeded your rate limit",
        ),
        headers: { "retry-after": retryAfter },
      },
    }),
    contextTooLong: {
      error: {
        status: 400,
        body: anthropicError(
          "invalid_request_error",
          "prompt is too long: 215000 tokens > 200000 maximum",
        ),
      },
    },
  },
  {
    provider: "openai",
    model: "openai:gpt-x",
    key: FAKE_OPENAI_KEY,
    start: (script) => closing(startFakeOpenAI(script)),
    rateLimited: (retryAfter) => ({
      error: {
        status: 429,
        body: openaiError("Rate limit reached for requests", "requests", "rate_limit_exceeded"),
        headers: { "retry-after": retryAfter },
      },
    }),
    contextTooLong: {
      error: {
        status: 400,
        body: openaiError(
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130712 tokens.",
          "invalid_request_error",
          "context_length_exceeded",
          "messages",
        ),
      },
    },
  },
];

/**
 * The `modelSettings` that point a model string at a fake, as docket.yaml's `model.base_url`
 * would. Both provider packages append only the operation to the base URL.
 *
 * @example
 * ```ts
 * createHarness({ model: "anthropic:claude-x", modelSettings: settingsFor(fake, key) });
 * ```
 */
export function settingsFor(fake: FakeServer, apiKey: string) {
  return { baseUrl: `${fake.url}/v1`, apiKey };
}
