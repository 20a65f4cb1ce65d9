import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countWalCommits } from "../../bench/wal-commits.js";
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

/** A tool whose handler notes, by call id, what another process sees of the pending batch. */
function watchingTool(name: string, writes: boolean, watch: (callId: string) => Promise<void>) {
  return defineTool({
    name,
    description: writes ? "Write a note." : "Look something up.",
    input: z.object({}),
    writes,
    handler: async (_args, ctx) => {
      await watch(ctx.callId);
      return writes ? "written" : "found";
    },
  });
}

describe("the pending batch", () => {
  it("is on record while a batch that writes runs; a batch of reads is saved with its results alone", async () => {
    const { store, url } = await tempStore();
    const seen: Record<string, string[] | null> = {};
    let sessionId = "";
    const watch = async (callId: string) => {
      seen[callId] = await pendingSeenElsewhere(url, sessionId);
    };
    const lookup = watchingTool("lookup", false, watch);
    const note = watchingTool("write_note", true, watch);
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

  it("rides in the first write's claim: a turn of writes commits once per write and once for its results", async () => {
    const { store, url, file } = await tempStore();
    const seen: Record<string, string[] | null> = {};
    const commitsAt: Record<string, number> = {};
    let sessionId = "";
    const note = watchingTool("write_note", true, async (callId) => {
      commitsAt[callId] = countWalCommits(`${file}-wal`);
      seen[callId] = await pendingSeenElsewhere(url, sessionId);
    });
    sessionId = (await store.createSession({ principal: "agent", configHash: "" })).id;
    const harness = createHarness({
      model: createScriptedModel(
        scriptOf([
          turn("Writing.", call("w1", "write_note"), call("w2", "write_note")),
          turn("Writing more.", call("w3", "write_note"), call("w4", "write_note")),
          turn("Done."),
        ]),
      ),
      tools: [note],
      policy: () => ({ decision: "allow", rule: "test" }),
      store,
    });
    const result = await harness.run("Go.", { sessionId });
    expect(result.status).toBe("completed");
    // On record, signed with the claim, before the batch's first write ran.
    expect(seen).toEqual({
      w1: ["w1", "w2"],
      w2: ["w1", "w2"],
      w3: ["w3", "w4"],
      w4: ["w3", "w4"],
    });
    // Between w2's handler and w4's: the first turn's messages with w2's outcome, its pending
    // batch cleared; w3's claim and intent with the second pending batch; w4's claim and intent
    // with w3's outcome. The pending batch has no commit of its own (ADR 0084).
    expect((commitsAt.w4 ?? 0) - (commitsAt.w2 ?? 0)).toBe(3);
    expect((commitsAt.w2 ?? 0) - (commitsAt.w1 ?? 0)).toBe(1);
    expect(await pendingSeenElsewhere(url, sessionId)).toBeNull();
    const other = await openStore(url);
    try {
      await expectWholeBatches(other, sessionId);
      expect(await other.verifyChain(sessionId)).toMatchObject({ ok: true });
    } finally {
      await other.close();
    }
  });
});
