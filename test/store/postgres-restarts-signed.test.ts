import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { canOwnPostgres, type OwnPostgres, ownPostgres } from "../support/own-postgres.js";
import { freePort } from "./support/free-port.js";
import { verifyStoreAt } from "./support/signed-trail.js";
import { spawnWorker } from "./support/spawn-worker.js";

// Issue 33's proof: PostgreSQL stopped `-m immediate` under load ten times, on a cluster of this
// file's own (never the shared test server), with a signed gateway-like writer: no process dies,
// nothing acknowledged is lost, and verify finds no tampering.
const RESTARTS = Number(process.env.DOCKET_FAULT_RUNS ?? 10);
const root = mkdtempSync(join(tmpdir(), "docket-pg-restarts-"));
let server: OwnPostgres | undefined;

beforeAll(async () => {
  if (canOwnPostgres) server = ownPostgres(await freePort());
}, 60_000);
afterAll(() => {
  server?.destroy();
  rmSync(root, { recursive: true, force: true });
});

const acks = (output: string) => output.split("\n").filter((line) => line.startsWith("ACK "));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function moreAcks(worker: ReturnType<typeof spawnWorker>, than: number): Promise<void> {
  for (let i = 0; i < 1500 && acks(worker.output()).length <= than + 5; i += 1) await pause(20);
  expect(acks(worker.output()).length, worker.output().slice(-2000)).toBeGreaterThan(than + 5);
}

describe.skipIf(!canOwnPostgres)(
  "PostgreSQL stopped -m immediate under load, again and again",
  () => {
    it(`${RESTARTS} stops: the writer lives, nothing acknowledged is lost, verify finds no tampering`, async () => {
      const pg = server as OwnPostgres;
      const worker = spawnWorker("signed-restart-worker", [pg.url, root, "4"]);
      try {
        await worker.waitFor("READY");
        for (let stop = 0; stop < RESTARTS; stop += 1) {
          await moreAcks(worker, acks(worker.output()).length);
          // Mid-flight: calls of every lane are between their intent and their outcome.
          await pause(Math.random() * 300);
          pg.crash();
          await pause(200 + Math.random() * 400);
          pg.start();
        }
        // Writing again after the last restart, then a clean stop: the last attestation is signed.
        await moreAcks(worker, acks(worker.output()).length);
        expect(worker.child.exitCode, worker.output().slice(-2000)).toBeNull();
        worker.child.stdin?.write("stop\n");
        await worker.waitFor("DONE");
        expect(await worker.exited).toBe(0);
      } finally {
        if (worker.child.exitCode === null) worker.child.kill("SIGKILL");
      }
      const output = worker.output();
      expect(output).toContain("REFUSED");
      expect(output).not.toContain("THREW");
      expect(output).not.toMatch(/\n\s+at /);

      const report = await verifyStoreAt(pg.url, root);
      expect(report.problems, JSON.stringify(report.problems.slice(0, 3), null, 1)).toEqual([]);
      expect(report.unsigned, JSON.stringify(report.unsigned.slice(0, 3), null, 1)).toEqual([]);
      expect(report.verdict).toBe("verified");
      const store = await openStore(pg.url, { readOnly: true });
      try {
        const calls = new Map(
          (await store.listCalls({ limit: 1_000_000 })).map((c) => [c.callId, c.status]),
        );
        const acked = acks(output).map((line) => line.split(" ")[1] as string);
        expect(acked.length).toBeGreaterThan(RESTARTS * 5);
        expect(acked.filter((id) => calls.get(id) !== "ok")).toEqual([]);
      } finally {
        await store.close();
      }
    }, 300_000);
  },
);
