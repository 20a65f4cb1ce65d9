import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import { DESK_POLICY, deskTools } from "./support/desk-tools.js";
import { settingsFor } from "./support/fake-provider.js";
import { tempStore } from "./support/temp-store.js";
import { GARBLED_ARGUMENTS, WIRE_SCRIPT, WIRE_SYSTEM } from "./support/wire-script.js";

/** What differs between two runs of the same replies whichever way they are asked: ids, times. */
const VOLATILE = new Set(["sessionId", "runId", "at", "hash", "prevHash", "durationMs"]);

function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !VOLATILE.has(key))
      .map(([key, inner]) => [key, stable(inner)]),
  );
}

/** Run the wire script over a real HTTP server: streamed to a listener, or asked for whole. */
async function runOver(mode: "stream" | "generate") {
  const { store } = await tempStore();
  const fake = await startFakeOpenAI(WIRE_SCRIPT);
  const harness = createHarness({
    model: "openai:gpt-x",
    modelSettings: settingsFor(fake, FAKE_OPENAI_KEY),
    tools: deskTools().tools,
    policy: DESK_POLICY,
    store,
    system: WIRE_SYSTEM,
  });
  const result = await harness.run(
    "Where is SU-1?",
    mode === "stream" ? { onEvent: () => {} } : {},
  );
  const transcript = (await store.loadTranscript(result.sessionId)).map((m) => m.content);
  const trail = await store.listEvents({ sessionId: result.sessionId });
  const streamed = fake.requests.map((r) => (r.body as { stream?: boolean }).stream ?? false);
  return { result, transcript, trail, streamed };
}

describe("a run asked for whole turns or streamed", () => {
  it("keeps the same transcript and the same audit trail for the same replies", async () => {
    const streamed = await runOver("stream");
    const whole = await runOver("generate");
    expect(streamed.streamed).toEqual([true, true, true]);
    expect(whole.streamed).toEqual([false, false, false]);
    expect(whole.result).toEqual({ ...streamed.result, sessionId: whole.result.sessionId });
    expect(whole.transcript).toEqual(streamed.transcript);
    // The garbled argument text reached the store as the server sent it, on both paths.
    expect(JSON.stringify(whole.transcript)).toContain(JSON.stringify(GARBLED_ARGUMENTS));
    expect(new Set(whole.trail.map((r) => r.callId))).toEqual(
      new Set(["toolu_01", "toolu_02", "toolu_03", "toolu_04"]),
    );
    expect(stable(whole.trail)).toEqual(stable(streamed.trail));
  });
});
