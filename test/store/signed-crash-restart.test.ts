import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readPublicKey } from "../../src/audit/audit-key.js";
import { openDigestLog } from "../../src/audit/digest-log.js";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { openStore } from "../../src/store/open-store.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { spawnWorker } from "./support/spawn-worker.js";

// The target: 20 crash-and-restart runs per engine, no false tampering report.
const RUNS = Number(process.env.DOCKET_FAULT_RUNS ?? 20);

const engines = [
  { name: "SQLite", skip: false, url: (dir: string) => `sqlite:${join(dir, "docket.db")}` },
  { name: "PostgreSQL", skip: skipPostgres, url: () => freshPostgresUrl() },
];

afterAll(async () => {
  if (!skipPostgres) await dropTestSchemas();
});

describe.each(engines)("a gateway SIGKILLed mid-load and restarted, on $name", (engine) => {
  it.skipIf(engine.skip)(
    `${RUNS} runs: verify reports no tampering, and nothing acknowledged is lost`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "docket-signed-crash-"));
      const url = engine.url(dir);
      const acked = new Map<string, string>();
      for (let run = 0; run < RUNS; run += 1) {
        const worker = spawnWorker("signed-gateway-worker", [url, dir]);
        await worker.waitFor("READY");
        // Every other run lets a first call be answered before the kill: on a loaded machine a
        // PostgreSQL worker may answer nothing within the random delay alone.
        if (run % 2 === 1) {
          for (let i = 0; i < 600 && !worker.output().includes("ACK "); i += 1) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
        // Mid-load: sessions cut before, during and after their first batches.
        await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 300));
        worker.child.kill("SIGKILL");
        await worker.exited;
        for (const line of worker.output().split("\n")) {
          const [word, id, status] = line.split(" ");
          if (word === "ACK" && id && status) acked.set(id, status);
        }
      }
      // The restart: docket opens the store again (recovery), serves a little, stops cleanly.
      const last = spawnWorker("signed-gateway-worker", [url, dir, "0.3"]);
      expect(await last.exited, last.output()).toBe(0);

      const store = await openStore(url, { readOnly: true });
      const digests = await openDigestLog(join(dir, "audit-digests.jsonl"));
      try {
        const publicKey = readPublicKey(join(dir, "audit-key.pub.pem")).key;
        const report = await verifyStoreTrail(store, { publicKey, digests });
        const firstOfEach = [...new Set(report.problems.map((p) => p.kind))].map((kind) =>
          report.problems.find((p) => p.kind === kind),
        );
        expect(report.problems, JSON.stringify(firstOfEach, null, 1)).toEqual([]);
        // Never tampering, and nothing left unsigned: a session's row commits with its first
        // attestation, and a tail that names no owned call (cut between its `requested` events
        // and their claims) is its last signer's, so recovery signs it once that one is gone.
        expect(report.unsigned, JSON.stringify(report.unsigned.slice(0, 3), null, 1)).toEqual([]);
        expect(report.verdict).toBe("verified");
        const calls = new Map(
          (await store.listCalls({ limit: 1_000_000 })).map((c) => [c.callId, c.status]),
        );
        const lost = [...acked].filter(([id, status]) => calls.get(id) !== status);
        expect(lost).toEqual([]);
        expect(acked.size).toBeGreaterThanOrEqual(Math.floor(RUNS / 2));
      } finally {
        await digests.close();
        await store.close();
      }
    },
    600_000,
  );
});
