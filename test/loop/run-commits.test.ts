import { describe, expect, it } from "vitest";
import { readWal } from "../../bench/wal-commits.js";
import { isDocketError } from "../../src/errors/docket-error.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { deskTools } from "./support/desk-tools.js";
import { holdFirstRequest } from "./support/held-model.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

// One turn of ten reads, then the answer: the shape of issue 38's per-run count.
const tenReads = () =>
  scriptOf([
    turn(
      "Looking.",
      ...Array.from({ length: 10 }, (_, i) => call(`c${i}`, "get_order", { order_id: "SU-1" })),
    ),
    turn("All delivered."),
  ]);

describe("a run's commits (ADR 0072)", () => {
  it("commits a fresh 1-turn run of reads in at most 3 (start, batch, end), run after run on one harness", async () => {
    const { store, file } = await tempStore();
    const desk = deskTools();
    const harness = createHarness({
      model: createScriptedModel(tenReads()),
      tools: desk.tools,
      store,
      system: "Be brief.",
    });
    for (let run = 0; run < 3; run += 1) {
      const before = readWal(`${file}-wal`);
      const result = await harness.run(`Where are my orders? (${run})`);
      const after = readWal(`${file}-wal`);
      expect(result).toMatchObject({ status: "completed", text: "All delivered." });
      expect(after.salt).toBe(before.salt === "" ? after.salt : before.salt);
      // The batch commits alone, or with the end when the next turn came before the loop idled.
      expect([2, 3]).toContain(after.commits - before.commits);
      // The whole run is there: its status, its transcript, and no lease left behind.
      expect((await store.getSession(result.sessionId))?.status).toBe("completed");
      expect((await store.loadTranscript(result.sessionId)).map((m) => m.role)).toEqual([
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
      ]);
      expect(await store.getLease(result.sessionId)).toBeUndefined();
      expect((await store.verifyChain(result.sessionId)).ok).toBe(true);
    }
    expect(desk.runs).toHaveLength(30);
  });

  it("refuses a second store on the same file while the new session's first run holds it", async () => {
    const { store, url } = await tempStore();
    const held = holdFirstRequest(createScriptedModel(scriptOf([turn("Hello.")])));
    const first = createHarness({ model: held.model, store });
    const controller = new AbortController();
    let sessionId = "";
    const running = first.run("Hi.", {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "run_start") sessionId = event.sessionId;
      },
    });
    await held.inFlight;
    // Right after the run's first commit: the session, its lease and its prompt are there.
    expect((await store.getLease(sessionId))?.owner).toMatch(new RegExp(`^${store.owner}#`));
    const other = await openStore(url);
    try {
      const second = createHarness({
        model: createScriptedModel(scriptOf([turn("Me too.")])),
        store: other,
      });
      const refused = await second.resume(sessionId).catch((error: unknown) => error);
      expect(isDocketError(refused) && refused.code).toBe("session_busy");
      expect(
        await other.startSession(
          { id: sessionId, principal: "agent", configHash: "" },
          { lease: { owner: `${other.owner}#x`, ttlMs: 30_000 } },
        ),
      ).toMatchObject({ status: "held", lease: { sessionId } });
      controller.abort();
      expect((await running).status).toBe("cancelled");
      // Let go in the run's last commit: the other store can run it now.
      expect(await other.getLease(sessionId)).toBeUndefined();
      expect((await second.resume(sessionId)).status).toBe("completed");
    } finally {
      await other.close();
    }
  });

  it("releases only its own lease at the end: a lease taken over is left to its holder", async () => {
    const { store } = await tempStore();
    const lapsed = "other-host/1/a#run";
    const started = await store.startSession(
      { principal: "agent", configHash: "" },
      {
        lease: { owner: lapsed, ttlMs: 30 },
        messages: [{ role: "user", content: { text: "hi" } }],
      },
    );
    if (started.status !== "started") throw new Error(`not started: ${started.status}`);
    const id = started.session.id;
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect((await store.acquireLease(id, { owner: "other-host/2/b#run" })).status).toBe("acquired");
    await store.endRun(id, {
      status: "completed",
      messages: [{ role: "assistant", content: { text: "bye" } }],
      releaseLease: lapsed,
    });
    expect((await store.getLease(id))?.owner).toBe("other-host/2/b#run");
    expect((await store.getSession(id))?.status).toBe("completed");
    expect((await store.loadTranscript(id)).map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});
