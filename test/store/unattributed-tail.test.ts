import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { faultDirs, faultEngines } from "./support/fault-engines.js";
import { failingSigner, openSignedAt, verifyStoreAt } from "./support/signed-trail.js";
import { spawnWorker } from "./support/spawn-worker.js";

// Issue 33.1: the crash windows that used to leave a tail no owner on record could explain,
// read as `unsigned` after recovery (about one run in 500 of signed-crash-restart).
const dirs = faultDirs("docket-unattributed-");
afterAll(dirs.cleanup);

describe.each(faultEngines)("a tail that names no owned call, on $name", (engine) => {
  it.skipIf(engine.skip)(
    "a writer killed after its requested events and before their claims: recovery signs the tail as recovered",
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const worker = spawnWorker("requested-tail-worker", [url, dir, "die"]);
      expect(await worker.exited, worker.output()).toBe("SIGKILL");
      const before = await verifyStoreAt(url, dir);
      expect(before.unsigned.map((f) => f.kind)).toEqual(["unsigned_tail"]);
      expect(before.verdict).toBe("unsigned");

      const restarted = await openSignedAt(url, dir);
      await restarted.close();
      const after = await verifyStoreAt(url, dir);
      expect(after.problems).toEqual([]);
      expect(after.unsigned).toEqual([]);
      expect(after.verdict).toBe("verified");
      const store = await openStore(url, { readOnly: true });
      try {
        const last = (await store.listAttestations("ses_die")).at(-1);
        expect(last).toMatchObject({ seq: 2, recovered: true });
      } finally {
        await store.close();
      }
    },
    60_000,
  );

  it.skipIf(engine.skip)(
    "a live writer's tail is left to it: another process's recovery does not sign it",
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const worker = spawnWorker("requested-tail-worker", [url, dir, "live"]);
      try {
        await worker.waitFor("TAIL");
        const other = await openSignedAt(url, dir);
        await other.close();
        const report = await verifyStoreAt(url, dir);
        expect(report.unsigned.map((f) => f.kind)).toEqual(["unsigned_tail"]);
        expect(report.problems).toEqual([]);
      } finally {
        worker.child.kill("SIGKILL");
        await worker.exited;
      }
    },
    60_000,
  );

  it.skipIf(engine.skip)(
    "a session whose first attestation cannot be signed is not created: row and signature commit together",
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      // The store and its key exist, as after any earlier run.
      await (await openSignedAt(url, dir)).close();
      const failing = failingSigner("the key is gone");
      const broken = await openStore(url, { signer: failing });
      try {
        await expect(
          broken.createSession({ id: "ses_unsigned", principal: "agent", configHash: "x" }),
        ).rejects.toThrow("the key is gone");
        expect(await broken.getSession("ses_unsigned")).toBeUndefined();
        await expect(
          broken.createSession({ id: "ses_unsigned", principal: "agent", configHash: "x" }),
        ).rejects.toThrow("the key is gone");
      } finally {
        await broken.close().catch(() => undefined);
      }
    },
    60_000,
  );
});
