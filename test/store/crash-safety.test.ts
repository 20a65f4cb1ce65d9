import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { crashSession } from "./support/crash-session.js";
import { spawnWorker } from "./support/spawn-worker.js";

// 50 by default; DOCKET_FAULT_RUNS (the fault tests' repeat count, 20 by default) scales it, as
// CI does where the suite must fit its time budget.
const KILLS = Math.max(10, Math.round(2.5 * Number(process.env.DOCKET_FAULT_RUNS ?? 20)));

describe("crash safety", () => {
  it(`survives ${KILLS} SIGKILLs: whole batches, a verifying chain, intents reported interrupted, nothing run twice`, async () => {
    const { url, sessionId, effects } = await crashSession("docket-crash-");

    let interruptedSeen = 0;
    for (let kill = 0; kill < KILLS; kill += 1) {
      const worker = spawnWorker("crash-worker", [url, sessionId, effects]);
      await worker.waitFor("READY");
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60));
      worker.child.kill("SIGKILL");
      await worker.exited;

      // Reopening recovers: the killed worker's started writes become interrupted.
      const store = await openStore(url);
      try {
        const transcript = await store.loadTranscript(sessionId);
        for (let i = 0; i < transcript.length; i += 2) {
          const assistant = transcript[i];
          if (!assistant) break;
          const tool = transcript.slice(i + 1, i + 11);
          expect(assistant.role).toBe("assistant");
          const ids = (assistant.content as { calls: { id: string }[] }).calls.map((c) => c.id);
          expect(tool.map((m) => (m.content as { callId: string }).callId)).toEqual(ids);
          i += ids.length - 1;
        }
        const verdict = await store.verifyChain(sessionId);
        expect(verdict.ok, JSON.stringify(verdict)).toBe(true);
        const open = (await store.listCalls({ sessionId: sessionId })).filter(
          (c) => c.state === "started" || c.state === "claimed",
        );
        expect(open).toEqual([]);
        interruptedSeen = (await store.listInterrupted(sessionId)).length;
      } finally {
        await store.close();
      }
    }
    const ran = (await readFile(effects, "utf8")).split("\n").filter(Boolean);
    expect(new Set(ran).size).toBe(ran.length);
    expect(ran.length).toBeGreaterThan(KILLS);
    // Not every kill lands inside a handler, but over fifty some must have.
    expect(interruptedSeen).toBeGreaterThan(0);
  }, 240_000);
});
