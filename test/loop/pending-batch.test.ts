import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";
import { expectWholeBatches } from "./support/whole-batches.js";

/** What another process sees of the session's pending batch: the ids of its calls, or none. */
async function pendingSeenElsewhere(url: string, sessionId: string): Promise<string[] | null> {
  const other = await openStore(url);
  try {
    const metadata = (await other.getSession(sessionId))?.metadata as
      | { pendingBatch?: { assistant: { toolCalls: { id: string }[] } } }
      | undefined;
    return metadata?.pendingBatch?.assistant.toolCalls.map((c) => c.id) ?? null;
  } finally {
    await other.close();
  }
}

describe("the pending batch", () => {
  it("is on record while a batch that writes runs; a batch of reads is saved with its results alone", async () => {
    const { store, url } = await tempStore();
    const seen: Record<string, string[] | null> = {};
    let sessionId = "";
    const lookup = defineTool({
      name: "lookup",
      description: "Look something up.",
      input: z.object({}),
      writes: false,
      handler: async (_args, ctx) => {
        seen[ctx.callId] = await pendingSeenElsewhere(url, sessionId);
        return "found";
      },
    });
    const note = defineTool({
      name: "write_note",
      description: "Write a note.",
      input: z.object({}),
      writes: true,
      handler: async (_args, ctx) => {
        seen[ctx.callId] = await pendingSeenElsewhere(url, sessionId);
        return "written";
      },
    });
    sessionId = (await store.createSession({ principal: "agent", configHash: "" })).id;
    const harness = createHarness({
      model: createScriptedModel(
        scriptOf([
          turn("Reading.", call("r1", "lookup"), call("r2", "lookup")),
          turn("Writing.", call("r3", "lookup"), call("w1", "write_note")),
          turn("Done."),
        ]),
      ),
      tools: [lookup, note],
      policy: () => ({ decision: "allow", rule: "test" }),
      store,
    });
    const result = await harness.run("Go.", { sessionId });
    expect(result.status).toBe("completed");
    expect(seen).toEqual({ r1: null, r2: null, r3: ["r3", "w1"], w1: ["r3", "w1"] });
    expect(await pendingSeenElsewhere(url, sessionId)).toBeNull();

    const other = await openStore(url);
    try {
      await expectWholeBatches(other, sessionId);
      const transcript = await other.loadTranscript(sessionId);
      expect(transcript.map((m) => m.role)).toEqual([
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "assistant",
      ]);
      expect(await other.verifyChain(sessionId)).toMatchObject({ ok: true, checked: 16 });
      const calls = await other.listCalls({ sessionId });
      expect(calls.map((c) => [c.callId, c.state]).sort()).toEqual([
        ["r1", "finished"],
        ["r2", "finished"],
        ["r3", "finished"],
        ["w1", "finished"],
      ]);
    } finally {
      await other.close();
    }
  });
});
