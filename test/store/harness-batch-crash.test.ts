import { afterAll, describe, expect, it } from "vitest";
import type { TrailProblem } from "../../src/audit/trail-report.js";
import { openStore } from "../../src/store/open-store.js";
import { faultDirs, faultEngines } from "./support/fault-engines.js";
import { openSignedAt, verifyStoreAt } from "./support/signed-trail.js";
import { spawnWorker } from "./support/spawn-worker.js";

// The target, through the loop: a harness whose every reply writes (its pending batch
// recorded in the session's row, then cleared by the batch's transcript) SIGKILLed mid-batch 20
// times per engine. After every kill, before any restart, verify may find what is not yet signed
// but never tampering; after the restart (recovery), everything is signed, messages written
// alone included (ADR 0067).
const RUNS = Number(process.env.DOCKET_FAULT_RUNS ?? 20);
const dirs = faultDirs("docket-harness-batch-crash-");
afterAll(dirs.cleanup);

describe.each(faultEngines)("a harness SIGKILLed mid-batch and restarted, on $name", (engine) => {
  it.skipIf(engine.skip)(
    `${RUNS} kills: no tampering reported after any of them, all signed after the restart`,
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const falseTampering: { run: number; problems: readonly TrailProblem[] }[] = [];
      let conversations = 0;
      for (let run = 0; run < RUNS; run += 1) {
        const worker = spawnWorker("harness-batch-loop-worker", [url, dir]);
        await worker.waitFor("READY");
        // Its first conversation ended (however slow the machine), then a kill at a random
        // moment of the ones that follow it.
        for (let waited = 0; waited < 60_000 && worker.child.exitCode === null; waited += 10) {
          if (/^RUN /m.test(worker.output())) break;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await new Promise((resolve) => setTimeout(resolve, 40 + Math.random() * 400));
        worker.child.kill("SIGKILL");
        await worker.exited;
        conversations += worker
          .output()
          .split("\n")
          .filter((l) => l.startsWith("RUN ")).length;
        const killed = await verifyStoreAt(url, dir);
        if (killed.problems.length > 0) falseTampering.push({ run, problems: killed.problems });
      }
      expect(falseTampering).toEqual([]);
      // Conversations did end between kills: the kills landed in running ones, not only idle.
      expect(conversations).toBeGreaterThan(0);
      // The restart: docket opens the store again (recovery signs what the dead left) and stops.
      await (await openSignedAt(url, dir)).close();
      const after = await verifyStoreAt(url, dir);
      expect(after.problems).toEqual([]);
      expect(after.unsigned, JSON.stringify(after.unsigned.slice(0, 3))).toEqual([]);
      expect(after.verdict).toBe("verified");
      const reader = await openStore(url, { readOnly: true });
      try {
        expect((await reader.listSessions({ limit: 10_000 })).length).toBeGreaterThanOrEqual(RUNS);
      } finally {
        await reader.close();
      }
    },
    600_000,
  );

  it.skipIf(engine.skip)(
    "a message written alone and cut before its attestation: unsigned, then signed by recovery",
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const worker = spawnWorker("message-alone-worker", [url, dir]);
      expect(await worker.exited, worker.output()).toBe("SIGKILL");
      const killed = await verifyStoreAt(url, dir);
      expect(killed.problems).toEqual([]);
      expect(killed.unsigned.map((p) => p.kind)).toEqual(["unsigned_messages"]);
      await (await openSignedAt(url, dir)).close();
      const after = await verifyStoreAt(url, dir);
      expect(after.problems).toEqual([]);
      expect(after.unsigned).toEqual([]);
      expect(after.verdict).toBe("verified");
      expect(after.recovered).toEqual([
        expect.objectContaining({
          sessionId: "ses_alone",
          fromSeq: 0,
          toSeq: 0,
          messages: { from: 1, to: 1 },
          message: expect.stringMatching(/^transcript messages 1 to 1 were signed by recovery/),
        }),
      ]);
    },
    60_000,
  );
});
