import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readPublicKey } from "../../../src/audit/audit-key.js";
import { type AuditSigner, createAuditSigner } from "../../../src/audit/create-audit-signer.js";
import { openDigestLog } from "../../../src/audit/digest-log.js";
import type { TrailReport } from "../../../src/audit/trail-report.js";
import { verifyStoreTrail } from "../../../src/audit/verify-store-trail.js";
import type { AttestationSigner, AuditAttestation } from "../../../src/store/audit-attestation.js";
import { linkHash } from "../../../src/store/audit-chain.js";
import { openStore } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/store.js";
import type { StoreEvent } from "../../../src/store/store-event.js";
import { callEvents } from "./call-events.js";
import { lit, rawSql } from "./raw-sql.js";

/**
 * A signer with its own key and digest log in a fresh temporary folder, and the public key an
 * auditor would hold.
 *
 * @example
 * ```ts
 * const { signer, publicKey } = await freshSigner();
 * ```
 */
export async function freshSigner(): Promise<{
  signer: AuditSigner;
  publicKey: ReturnType<typeof readPublicKey>["key"];
  dir: string;
}> {
  const dir = mkdtempSync(join(tmpdir(), "docket-audit-"));
  const signer = await createAuditSigner({
    keyFile: join(dir, "audit-key.pem"),
    digests: join(dir, "audit-digests.jsonl"),
    env: {},
  });
  return { signer, publicKey: readPublicKey(signer.paths.publicKeyFile).key, dir };
}

/**
 * `docket audit verify` of the store at `url`, read-only, with the key and digest log a signer
 * made in `dir` (as `createAuditSigner` lays them out there).
 *
 * @example
 * ```ts
 * expect((await verifyStoreAt(url, dir)).verdict).toBe("verified");
 * ```
 */
export async function verifyStoreAt(url: string, dir: string): Promise<TrailReport> {
  const store = await openStore(url, { readOnly: true });
  const digests = await openDigestLog(join(dir, "audit-digests.jsonl"));
  try {
    const publicKey = readPublicKey(join(dir, "audit-key.pub.pem")).key;
    return await verifyStoreTrail(store, { publicKey, digests });
  } finally {
    await digests.close();
    await store.close();
  }
}

/**
 * A store at `url` opened as the CLI would, signing with the key and digest log in `dir`;
 * `close` closes both. With a long `attestationIntervalMs` the cadence never signs within a
 * test: only the commits that sign in themselves do.
 *
 * @example
 * ```ts
 * const { store, close } = await openSignedAt(url, dir);
 * ```
 */
export async function openSignedAt(
  url: string,
  dir: string,
  { attestationIntervalMs }: { attestationIntervalMs?: number } = {},
): Promise<{ store: Store; close: () => Promise<void> }> {
  const signer = await createAuditSigner({
    keyFile: join(dir, "audit-key.pem"),
    digests: join(dir, "audit-digests.jsonl"),
    env: {},
  });
  const store = await openStore(url, {
    signer,
    ...(attestationIntervalMs === undefined ? {} : { attestationIntervalMs }),
  });
  return {
    store,
    close: async () => {
      await store.close();
      await signer.close();
    },
  };
}

/**
 * A signer whose key cannot sign (it was removed): every attestation fails with `message`.
 *
 * @example
 * ```ts
 * const broken = await openStore(url, { signer: failingSigner("the key is gone") });
 * ```
 */
export function failingSigner(message: string): AttestationSigner {
  return {
    keyId: "k".repeat(16),
    sign(): string {
      throw new Error(message);
    },
    deliver(_attestations: readonly AuditAttestation[]): void {},
  };
}

/**
 * The trail the tamper tests start from: session A with two calls (an attestation after each,
 * seqs 4 and 8) and a transcript, session B with one call and a pending approval.
 *
 * @example
 * ```ts
 * const { a, b } = await writeSignedTrail(store);
 * ```
 */
export async function writeSignedTrail(store: Store): Promise<{ a: string; b: string }> {
  const a = (await store.createSession({ id: "ses_a", principal: "agent", configHash: "x" })).id;
  const b = (await store.createSession({ id: "ses_b", principal: "agent", configHash: "x" })).id;
  await store.appendMessage(a, { role: "user", content: "refund SU-88421" });
  await store.emitMany(callEvents({ sessionId: a, callId: "c1" }));
  await store.attest();
  await store.emitMany(callEvents({ sessionId: a, callId: "c2", at: 1_700_000_001_000 }));
  await store.saveBatch(a, { role: "assistant", content: "refunding" }, [
    { role: "tool", content: { ok: true } },
  ]);
  await store.attest();
  const base = { callId: "c3", tool: "delete_file", sessionId: b };
  const events: StoreEvent[] = [
    { ...base, type: "requested", at: 1, principal: "agent", rawArguments: "{}", rawBytes: 2 },
    {
      ...base,
      type: "approval_requested",
      at: 2,
      argumentsHash: "h".repeat(64),
      approvers: undefined,
    },
    { ...base, type: "awaiting_approval", at: 3, approvalId: "apr_1" },
  ];
  await store.emitMany(events);
  await store.createApproval({
    id: "apr_1",
    sessionId: b,
    callId: "c3",
    tool: "delete_file",
    canonicalArgs: "{}",
    argsHash: "h".repeat(64),
    requestedBy: "agent",
    createdAt: 1,
  });
  await store.attest();
  return { a, b };
}

/**
 * Statements that lift every append-only guard, as an attacker with the database would.
 *
 * @example
 * ```ts
 * await rawSql(store, [...liftAllGuards(store), "DELETE FROM audit_checkpoints"]);
 * ```
 */
export function liftAllGuards(store: Store): string[] {
  return store.engine === "sqlite"
    ? [
        "DROP TRIGGER IF EXISTS audit_events_no_update",
        "DROP TRIGGER IF EXISTS audit_events_no_delete",
        "DROP TRIGGER IF EXISTS audit_checkpoints_no_update",
        "DROP TRIGGER IF EXISTS audit_checkpoints_no_delete",
      ]
    : [
        "ALTER TABLE audit_events DISABLE TRIGGER USER",
        "ALTER TABLE audit_checkpoints DISABLE TRIGGER USER",
      ];
}

/**
 * Re-chain a session after its rows were edited: recompute every prev_hash and hash from the
 * first seq on, and move the head: what an attacker who knows the (unkeyed) hash does.
 *
 * @example
 * ```ts
 * await rawSql(store, await rechain(store, "ses_a"));
 * ```
 */
export async function rechain(store: Store, sessionId: string): Promise<string[]> {
  const [rows] = await rawSql(store, [
    `SELECT seq, event FROM audit_events WHERE session_id = ${lit(sessionId)} ORDER BY seq`,
  ]);
  const statements: string[] = [];
  let prev = "0".repeat(64);
  let seq = 0;
  for (const row of rows as { seq: unknown; event: unknown }[]) {
    seq = Number(row.seq);
    const hash = linkHash(seq, sessionId, prev, String(row.event));
    statements.push(
      `UPDATE audit_events SET prev_hash = ${lit(prev)}, hash = ${lit(hash)} WHERE session_id = ${lit(sessionId)} AND seq = ${seq}`,
    );
    prev = hash;
  }
  statements.push(
    `UPDATE chain_heads SET seq = ${seq}, hash = ${lit(prev)} WHERE session_id = ${lit(sessionId)}`,
  );
  return statements;
}
