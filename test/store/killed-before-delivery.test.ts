import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAuditSigner } from "../../src/audit/create-audit-signer.js";
import { openStore } from "../../src/store/open-store.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";
import { rawSql } from "./support/raw-sql.js";
import { liftAllGuards, verifyStoreAt } from "./support/signed-trail.js";
import { spawnWorker } from "./support/spawn-worker.js";

// ADR 0049: a process killed between an attestation's commit and its copy to the digest log.
const engines = [
  { name: "SQLite", skip: false, url: (dir: string) => `sqlite:${join(dir, "docket.db")}` },
  { name: "PostgreSQL", skip: skipPostgres, url: () => freshPostgresUrl() },
];

afterAll(async () => {
  if (!skipPostgres) await dropTestSchemas();
});

/** The restart: docket opens the store with its signer (recovery), then closes it. */
async function restart(url: string, dir: string): Promise<void> {
  const signer = await createAuditSigner({
    keyFile: join(dir, "audit-key.pem"),
    digests: join(dir, "audit-digests.jsonl"),
    env: {},
  });
  const store = await openStore(url, { signer });
  await store.close();
  await signer.close();
}

async function killedAt(n: number, engine: (typeof engines)[number]) {
  const dir = mkdtempSync(join(tmpdir(), "docket-undelivered-"));
  const url = engine.url(dir);
  const worker = spawnWorker("die-in-delivery-worker", [url, dir, String(n)]);
  expect(await worker.exited, worker.output()).toBe("SIGKILL");
  expect(worker.output()).toContain(`DYING ${n}`);
  return { dir, url };
}

describe.each(engines)(
  "a process killed between an attestation's commit and its delivery, on $name",
  (engine) => {
    it.skipIf(engine.skip)(
      "reads as not yet delivered (not tampering) before the restart, and verifies after it",
      async () => {
        for (const n of [1, 3]) {
          const { dir, url } = await killedAt(n, engine);
          const before = await verifyStoreAt(url, dir);
          expect(before.problems).toEqual([]);
          expect(before.verdict).toBe("unsigned");
          expect(before.unsigned.find((p) => p.kind === "undelivered")).toMatchObject({
            sessionId: "ses_dies",
          });
          await restart(url, dir);
          const after = await verifyStoreAt(url, dir);
          expect({ n, problems: after.problems, unsigned: after.unsigned }).toEqual({
            n,
            problems: [],
            unsigned: [],
          });
          expect(after.verdict).toBe("verified");
          // Delivered once: recovery sent only what the digest log lacked.
          const lines = readFileSync(join(dir, "audit-digests.jsonl"), "utf8").trim().split("\n");
          expect(new Set(lines).size).toBe(lines.length);
        }
      },
      120_000,
    );

    it.skipIf(engine.skip)(
      "still proves tampering: a delivered attestation cut from the digest log, or from the store",
      async () => {
        const { dir, url } = await killedAt(3, engine);
        await restart(url, dir);
        expect((await verifyStoreAt(url, dir)).verdict).toBe("verified");

        // The digest log loses attestation 1, which attestations 2 and 3 chain back through.
        const file = join(dir, "audit-digests.jsonl");
        const original = readFileSync(file, "utf8");
        const lines = original.trim().split("\n");
        const first = lines.findIndex((line) => {
          const body = JSON.parse(JSON.parse(line).body) as { sessionId: string; n: number };
          return body.sessionId === "ses_dies" && body.n === 1;
        });
        expect(first).toBeGreaterThanOrEqual(0);
        writeFileSync(file, `${lines.filter((_, i) => i !== first).join("\n")}\n`);
        const cut = await verifyStoreAt(url, dir);
        expect(cut.verdict).toBe("tampered");
        expect(cut.problems.find((p) => p.kind === "digest_mismatch")?.message).toContain(
          "attestation 1 (event 0) is in the store but not in the digest log, and no process owes its copy",
        );
        writeFileSync(file, original);

        // The store loses its last delivered attestation (a rollback).
        const store = await openStore(url, { readOnly: true });
        try {
          const last = (await store.listAttestations("ses_dies")).at(-1);
          await rawSql(store, [
            ...liftAllGuards(store),
            `DELETE FROM audit_checkpoints WHERE session_id = 'ses_dies' AND n = ${last?.n}`,
          ]);
        } finally {
          await store.close();
        }
        const rolled = await verifyStoreAt(url, dir);
        expect(rolled.verdict).toBe("tampered");
        expect(rolled.problems.map((p) => p.kind)).toContain("digest_mismatch");
      },
      120_000,
    );
  },
);
