import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { readPublicKey } from "../../src/audit/audit-key.js";
import { createAuditSigner } from "../../src/audit/create-audit-signer.js";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { openStore } from "../../src/store/open-store.js";
import { postgresUrl, skipPostgres } from "../support/postgres.js";
import { rawSql } from "./support/raw-sql.js";
import { liftAllGuards, writeSignedTrail } from "./support/signed-trail.js";

const database = `docket_digests_${randomBytes(6).toString("hex")}`;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

describe.skipIf(skipPostgres)("a digest log in a separate PostgreSQL database", () => {
  afterAll(async () => {
    if (!skipPostgres) await admin(`DROP DATABASE IF EXISTS ${database}`);
  });

  it("receives every attestation, and proves a session deleted from the store", async () => {
    await admin(`CREATE DATABASE ${database}`);
    const digests = String(postgresUrl).replace(/\/[^/?]*(\?.*)?$/, `/${database}`);
    const dir = mkdtempSync(join(tmpdir(), "docket-pgdigest-"));
    const signer = await createAuditSigner({ keyFile: join(dir, "k.pem"), digests, env: {} });
    const url = `sqlite:${join(dir, "docket.db")}`;
    const store = await openStore(url, { signer });
    await writeSignedTrail(store);
    await store.close();
    const publicKey = readPublicKey(signer.paths.publicKeyFile).key;
    const reader = await openStore(url, { readOnly: true });
    try {
      expect(await verifyStoreTrail(reader, { publicKey, digests: signer.digests })).toMatchObject({
        ok: true,
        attestations: 5,
      });
      await rawSql(reader, [
        ...liftAllGuards(reader),
        ...["audit_events", "chain_heads", "audit_checkpoints", "calls", "approvals"].map(
          (table) => `DELETE FROM ${table} WHERE session_id = 'ses_b'`,
        ),
      ]);
      const report = await verifyStoreTrail(reader, { publicKey, digests: signer.digests });
      expect(report.problems.find((p) => p.kind === "deleted_session")).toMatchObject({
        sessionId: "ses_b",
        seq: 1,
      });
    } finally {
      await reader.close();
      await signer.close();
    }
  });

  it("survives the digest database ending its connections (a restart): no crash, the next delivery reconnects", async () => {
    await admin(`CREATE DATABASE ${database}_r`);
    const digests = String(postgresUrl).replace(/\/[^/?]*(\?.*)?$/, `/${database}_r`);
    const dir = mkdtempSync(join(tmpdir(), "docket-pgdigest-restart-"));
    const signer = await createAuditSigner({ keyFile: join(dir, "k.pem"), digests, env: {} });
    const store = await openStore(`sqlite:${join(dir, "docket.db")}`, { signer });
    try {
      await store.createSession({ id: "ses_1", principal: "agent", configHash: "" });
      // What a restart does to idle connections: the server ends them.
      await admin(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}_r'`,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      await store.createSession({ id: "ses_2", principal: "agent", configHash: "" });
      const delivered = (await signer.digests.read()).attestations.map((c) => c.sessionId);
      expect(delivered).toEqual(["ses_1", "ses_2"]);
    } finally {
      await store.close();
      await signer.close();
      await admin(`DROP DATABASE IF EXISTS ${database}_r`);
    }
  });
});
