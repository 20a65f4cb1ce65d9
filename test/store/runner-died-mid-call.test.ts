import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createHarness } from "../../src/loop/create-harness.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { EFFECT_POLICY, effectScript, effectTools } from "../loop/support/effect-desk.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { expectWholeBatches } from "../loop/support/whole-batches.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { spawnWorker } from "./support/spawn-worker.js";

// Found by the soak (issue 23): a runner SIGKILLed between reserving a write's call id and
// recording its intent left the claim behind. Store recovery runs at open only, so a runner that
// was already open and took the session over next found the claim, refused the approved refund
// as `duplicate_call_id` ("give every call its own id") and completed the session: the write
// never ran, and nothing said it had been lost.

afterAll(dropTestSchemas);

const directory = createApproverDirectory({ alice: { roles: ["lead"] } }, {});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function approvedSession(url: string, effects: string): Promise<string> {
  const store = await openStore(url);
  try {
    const harness = createHarness({
      model: createScriptedModel(effectScript("setup")),
      tools: effectTools(effects),
      policy: EFFECT_POLICY,
      store,
      approvals: createDurableApprover({ store, directory, mode: "suspend" }),
    });
    const suspended = await harness.run("Refund SU-1 and note it.");
    await decideApproval(store, directory, {
      approvalId: suspended.approvals?.[0]?.approvalId ?? "",
      decision: "approve",
      claim: { name: "alice" },
    });
    return suspended.sessionId;
  } finally {
    await store.close();
  }
}

/** A session whose runner died at `stage`, and a runner opened before it died, resuming it. */
async function takeOverAfterDeath(url: string, stage: "claimed" | "started" | "hold") {
  const dir = await tempDir();
  const effects = join(dir, "effects.log");
  writeFileSync(effects, "");
  const sessionId = await approvedSession(url, effects);
  // Open first: its recovery at open sees nothing to recover.
  const store = await openStore(url);
  try {
    const dying = spawnWorker("die-in-resume", [url, sessionId, stage]);
    await dying.waitFor("READY");
    dying.child.stdin?.write("go\n");
    if (stage === "hold") await dying.waitFor("CLAIMED");
    else expect(await dying.exited, dying.output()).toBe("SIGKILL");
    await sleep(250); // its lease lapses
    const harness = createHarness({
      model: createScriptedModel(effectScript("next")),
      tools: effectTools(effects),
      policy: EFFECT_POLICY,
      store,
      approvals: createDurableApprover({ store, directory, mode: "suspend" }),
    });
    // On SQLite a live holder keeps its lease whatever the clocks say (issue 33): then the
    // takeover itself is refused, and what it would have done is not done.
    const resumed = await harness.resume(sessionId).then(
      (value) => ({ status: "resumed" as const, value }),
      (error: unknown) => ({ status: "refused" as const, error }),
    );
    if (resumed.status === "refused") {
      dying.child.kill("SIGKILL");
      await dying.exited;
      return {
        busy: resumed.error,
        ran: readFileSync(effects, "utf8").split("\n").filter(Boolean),
      };
    }
    const result = resumed.value;
    const messages = await expectWholeBatches(store, sessionId);
    const refund = messages
      .flatMap((m: TranscriptMessage) => (m.role === "tool" ? m.results : []))
      .find((r) => r.callId === "r1");
    dying.child.kill("SIGKILL");
    await dying.exited;
    return {
      result,
      refund,
      ran: readFileSync(effects, "utf8").split("\n").filter(Boolean),
      interrupted: (await store.listInterrupted(sessionId)).map((c) => c.callId),
    };
  } finally {
    await store.close();
  }
}

/** A takeover that happened: a refused one (the live holder kept its lease) fails the test. */
function tookOver<T extends object>(outcome: T): Exclude<T, { busy: unknown }> {
  if ("busy" in outcome) throw outcome.busy;
  return outcome as Exclude<T, { busy: unknown }>;
}

const engines = [
  { name: "SQLite", skip: false, url: async () => `sqlite:${join(await tempDir(), "docket.db")}` },
  { name: "PostgreSQL", skip: skipPostgres, url: async () => freshPostgresUrl() },
];

for (const engine of engines) {
  describe.skipIf(engine.skip)(`${engine.name}: a runner that died mid-call`, () => {
    it("after its claim, before its intent: the next runner runs the write, once", async () => {
      const { result, refund, ran, interrupted } = tookOver(
        await takeOverAfterDeath(await engine.url(), "claimed"),
      );
      expect(result.status).toBe("completed");
      expect(refund).toMatchObject({ status: "ok" });
      expect(ran).toEqual(["refund:r1", "note:n_next"]);
      expect(interrupted).toEqual([]);
    });

    it("after its intent, before its effect: closed as interrupted, never run again", async () => {
      const { result, refund, ran, interrupted } = tookOver(
        await takeOverAfterDeath(await engine.url(), "started"),
      );
      expect(result.status).toBe("completed");
      expect(refund).toMatchObject({ status: "failed", reason: "interrupted" });
      expect(ran).toEqual(["note:n_next"]);
      // On record as interrupted by the runner that took over, not only in the model's reply.
      expect(interrupted).toEqual(["r1"]);
    });

    it("a claim whose runner is alive is never released: not run, and said so", async () => {
      const outcome = await takeOverAfterDeath(await engine.url(), "hold");
      if ("busy" in outcome) {
        // SQLite: the live runner's lease is not taken, so nothing of the session runs again.
        expect(engine.name).toBe("SQLite");
        expect(outcome.busy).toMatchObject({ code: "session_busy" });
        expect(outcome.ran).toEqual([]);
        return;
      }
      const { refund, ran } = outcome;
      expect(refund).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
      expect(refund?.text).toMatch(/reserved by another runner that has not finished it/);
      expect(ran).toEqual(["note:n_next"]);
    });
  });
}
