import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { readPublicKey } from "../../src/audit/audit-key.js";
import { openDigestLog } from "../../src/audit/digest-log.js";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { createAuditSigner, createCheckpoint, defineTool, openStore } from "../../src/index.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import { installedCliPath } from "../support/installed-cli.js";
import { runDocketAuditor } from "./support/run-docket-auditor.js";

const fixture = fileURLToPath(new URL("../fixtures/legacy-canonical-store/", import.meta.url));

/** A fresh copy of the store written before RFC 8785, so that a test may tamper with it. */
function legacyCopy(): { dir: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), "docket-legacy-canonical-"));
  const db = join(dir, "legacy.db");
  copyFileSync(join(fixture, "legacy.db"), db);
  copyFileSync(join(fixture, "audit-digests.jsonl"), join(dir, "audit-digests.jsonl"));
  return { dir, db };
}

/** `docket audit verify` on a store, as an operator runs it. */
function cliVerify(dir: string, db: string) {
  return runDocketAuditor(
    [
      "audit",
      "verify",
      "--store",
      `sqlite:${db}`,
      "--public-key",
      join(fixture, "audit-key.pub.pem"),
      "--digests",
      join(dir, "audit-digests.jsonl"),
    ],
    dir,
  );
}

/** Change a stored row as someone with write access to the file would (triggers dropped). */
function tamper(db: string, sql: string): void {
  const database = openNodeSqlite(db);
  database.exec("DROP TRIGGER IF EXISTS audit_events_no_update");
  database.exec(sql);
  database.close();
}

describe("a store hashed with the canonical JSON before RFC 8785", () => {
  it("stays verified: its session row was signed in the old form, and verify accepts it", () => {
    const { dir, db } = legacyCopy();
    const result = cliVerify(dir, db);
    expect(result.stdout, result.stderr).toMatch(
      /^ok: 12 events in 1 chain verified, with 2 signed/,
    );
    expect(result.status).toBe(0);
  }, 60_000);

  it("is verified by the library too, whole and one session at a time", async () => {
    const { dir, db } = legacyCopy();
    const store = await openStore(`sqlite:${db}`, { readOnly: true });
    const digests = await openDigestLog(join(dir, "audit-digests.jsonl"));
    try {
      const publicKey = readPublicKey(join(fixture, "audit-key.pub.pem")).key;
      const report = await verifyStoreTrail(store, { publicKey, digests });
      expect(report.problems).toEqual([]);
      expect(report.verdict).toBe("verified");
      // One session at a time, as the console's badge and `docket serve` ask.
      const [session] = await store.listSessions({ limit: 1 });
      expect(session?.metadata).toEqual({ "9": "nine", "10": "ten", b: "bee", "-1": "minus one" });
      const one = await verifyStoreTrail(store, { publicKey, digests, sessionId: session?.id });
      expect(one.verdict).toBe("verified");
    } finally {
      await digests.close();
      await store.close();
    }
  });

  it("fails when an event was altered, whichever form it was hashed in", () => {
    const { dir, db } = legacyCopy();
    tamper(db, `UPDATE audit_events SET event = replace(event, '"a":3', '"a":5') WHERE seq = 4`);
    const result = cliVerify(dir, db);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^TAMPERED/);
    expect(result.stdout).toMatch(/were altered \(they are stored in one row/);
  }, 60_000);

  it("fails when its session row was edited: neither form's hash matches the signed one", () => {
    const { dir, db } = legacyCopy();
    tamper(db, `UPDATE sessions SET metadata = replace(metadata, '"nine"', '"NINE"')`);
    const result = cliVerify(dir, db);
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/the session's row .* is not the one attestation 2 signed/);
  }, 60_000);
});

describe("a store written now", () => {
  it("hashes new events and session rows in the RFC 8785 form, and verifies", async () => {
    const dir = mkdtempSync(join(tmpdir(), "docket-jcs-store-"));
    const env = { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, ".config") };
    const signer = await createAuditSigner({ env: { ...env, DOCKET_AUDIT_KEY: "" } });
    const db = join(dir, "docket.db");
    const store = await openStore(`sqlite:${db}`, { signer });
    const tally = defineTool({
      name: "tally",
      description: "Count votes by ballot number. Use it when a ballot box is opened.",
      writes: false,
      input: { type: "object", additionalProperties: { type: "number" } },
      handler: (votes) => ({ counted: Object.keys(votes).length }),
    });
    const checkpoint = createCheckpoint({
      tools: [tally],
      store,
      policy: () => ({ decision: "allow" }),
    });
    const session = await store.createSession({
      principal: "jcs-bot",
      configHash: "jcs",
      metadata: { "10": "ten", "9": "nine" },
    });
    const result = await checkpoint.dispatch(
      { id: "c1", name: "tally", arguments: '{"10":1,"2":2,"a":3,"01":4}' },
      { sessionId: session.id },
    );
    expect(result.status).toBe("ok");
    await store.close();
    await signer.close();

    const database = openNodeSqlite(db, { readOnly: true });
    const row = database.prepare("SELECT event FROM audit_events").get() as { event: string };
    database.close();
    expect(row.event).toContain('"args":{"01":4,"10":1,"2":2,"a":3}');
    const verify = spawnSync(
      process.execPath,
      [installedCliPath(), "audit", "verify", "--store", `sqlite:${db}`],
      { encoding: "utf8", env: { ...env, DOCKET_AUDIT_KEY: "" } },
    );
    expect(verify.stdout, verify.stderr).toMatch(/^ok: 4 events in 1 chain verified/);
    expect(verify.status).toBe(0);
  }, 60_000);
});
