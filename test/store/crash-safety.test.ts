import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { spawnWorker } from "./support/spawn-worker.js";

const KILLS = 50;

describe("crash safety", () => {
  it(`survives ${KILLS} SIGKILLs: whole batches, a verifying chain, intents reported interrupted, nothing run twice`, async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-crash-"));
    const url = `sqlite:${join(dir, "docket.db")}`;
    const effects = join(dir, "effects.log");
    await writeFile(effects, "");
    const setup = await openStore(url);
    const session = await setup.createSession({ principal: "agent", configHash: "crash" });
    await setup.close();

    let interruptedSeen = 0;
    for (let kill = 0; kill < KILLS; kill += 1) {
      const worker = spawnWorker("crash-worker", [url, session.id, effects]);
      await worker.waitFor("READY");
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 60));
      worker.child.kill("SIGKILL");
      await worker.exited;

      // Reopening recovers: the killed worker's started writes become interrupted.
      const store = await openStore(url);
      try {
        const transcript = await store.loadTranscript(session.id);
        for (let i = 0; i < transcript.length; i += 2) {
          const assistant = transcript[i];
          if (!assistant) break;
          const tool = transcript.slice(i + 1, i + 11);
          expect(assistant.role).toBe("assistant");
          const ids = (assistant.content as { calls: { id: string }[] }).calls.map((c) => c.id);
          expect(tool.map((m) => (m.content as { callId: string }).callId)).toEqual(ids);
          i += ids.length - 1;
        }
        const verdict = await store.verifyChain(session.id);
        expect(verdict.ok, JSON.stringify(verdict)).toBe(true);
        const open = (await store.listCalls({ sessionId: session.id })).filter(
          (c) => c.state === "started" || c.state === "claimed",
        );
        expect(open).toEqual([]);
        interruptedSeen = (await store.listInterrupted(session.id)).length;
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
