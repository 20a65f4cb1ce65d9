import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import type { HarnessEvent } from "../../src/loop/harness-options.js";
import { PROVIDERS, settingsFor } from "./support/fake-provider.js";
import { tempStore } from "./support/temp-store.js";

describe.each(PROVIDERS)("$provider errors through the harness", (provider) => {
  it("fails on a wrong key (401) with a clear message, and the saved session resumes later", async () => {
    const { store } = await tempStore();
    const fake = await provider.start([{ text: "Your order shipped yesterday." }]);
    const wrong = createHarness({
      model: provider.model,
      modelSettings: settingsFor(fake, "sk-wrong-key-0000"),
      store,
    });

    const failed = await wrong.run("Has my order shipped?");
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe(
      `The model provider at ${new URL(fake.url).host} refused the API key (HTTP 401). Check the key.`,
    );
    expect(failed.text).toBe(failed.error);
    expect((await store.getSession(failed.sessionId))?.status).toBe("failed");
    expect((await store.loadTranscript(failed.sessionId)).map((m) => m.content)).toEqual([
      { role: "user", text: "Has my order shipped?" },
    ]);
    // One attempt only: a wrong key does not get better by asking again.
    expect(fake.requests).toHaveLength(1);

    const fixed = createHarness({
      model: provider.model,
      modelSettings: settingsFor(fake, provider.key),
      store,
    });
    const resumed = await fixed.resume(failed.sessionId);
    expect(resumed).toMatchObject({ status: "completed", text: "Your order shipped yesterday." });
    expect(fake.requests).toHaveLength(2);
  });

  it("waits as long as retry-after says on a 429, then completes", async () => {
    const { store } = await tempStore();
    const fake = await provider.start([provider.rateLimited("7"), { text: "All good now." }]);
    const delays: number[] = [];
    const harness = createHarness({
      model: provider.model,
      modelSettings: settingsFor(fake, provider.key),
      store,
      retries: { sleep: async (ms) => void delays.push(ms) },
    });
    const events: HarnessEvent[] = [];

    const result = await harness.run("Hello?", { onEvent: (e) => events.push(e) });
    expect(result).toMatchObject({ status: "completed", text: "All good now." });
    expect(delays).toEqual([7_000]);
    expect(events.filter((e) => e.type === "retry")).toEqual([
      {
        type: "retry",
        delayMs: 7_000,
        message: expect.stringContaining("rate limiting requests (HTTP 429)"),
      },
    ]);
    expect(fake.requests).toHaveLength(2);
  });

  it("fails with the context-window message when the provider says the prompt is too long", async () => {
    const { store } = await tempStore();
    const fake = await provider.start([provider.contextTooLong]);
    const harness = createHarness({
      model: provider.model,
      modelSettings: settingsFor(fake, provider.key),
      store,
      retries: { sleep: async () => {} },
    });

    const result = await harness.run("Summarise everything.");
    expect(result.status).toBe("failed");
    expect(result.error).toBe(
      "The conversation no longer fits the model's context window (HTTP 400). Start a new session or lower limits.context_bytes.",
    );
    expect(fake.requests).toHaveLength(1);
  });
});
