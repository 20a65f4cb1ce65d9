import { describe, expect, it } from "vitest";
import { createHarness } from "../../src/loop/create-harness.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { deskTools } from "./support/desk-tools.js";
import { call, turn, writeScriptFile } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

describe('the scripted model as "scripted:FILE"', () => {
  it("picks its turn by the assistant turns already saved, so a fresh harness continues", async () => {
    const { store, dir } = await tempStore();
    const file = await writeScriptFile(dir, [
      turn("One.", call("c1", "get_order", { order_id: "SU-1" })),
      turn("Two.", call("c2", "get_order", { order_id: "SU-2" })),
      turn("Three."),
    ]);
    const harnessAt = () =>
      createHarness({
        model: `scripted:${file}`,
        tools: deskTools().tools,
        store,
        limits: { maxTurns: 1 },
      });

    const first = await harnessAt().run("Go.");
    expect(first.status).toBe("limit_reached");
    // A new harness has a new model object: only the transcript tells it where the script is.
    const second = await harnessAt().resume(first.sessionId);
    expect(second.status).toBe("limit_reached");
    const third = await harnessAt().resume(first.sessionId);
    expect(third).toMatchObject({ status: "completed", text: "Three." });

    const saved = (await store.loadTranscript(first.sessionId)).map(
      (m) => m.content as TranscriptMessage,
    );
    expect(saved.flatMap((m) => (m.role === "assistant" ? [m.text] : []))).toEqual([
      "One.",
      "Two.",
      "Three.",
    ]);
    expect(saved.flatMap((m) => (m.role === "tool" ? m.results.map((r) => r.callId) : []))).toEqual(
      ["c1", "c2"],
    );
  });

  it("fails in words when the script has no turn left", async () => {
    const { store, dir } = await tempStore();
    const file = await writeScriptFile(dir, [
      turn("Only one.", call("c1", "get_order", { order_id: "SU-1" })),
    ]);
    const result = await createHarness({
      model: `scripted:${file}`,
      tools: deskTools().tools,
      store,
    }).run("Go.");
    expect(result.status).toBe("failed");
    expect(result.error).toBe(
      `The model request failed: The model script ${file} has 1 turns; turn 2 was requested.`,
    );
  });
});
