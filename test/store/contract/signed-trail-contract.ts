import { describe, expect, it } from "vitest";
import { openDigestLog } from "../../../src/audit/digest-log.js";
import { exportTrail, readExport } from "../../../src/audit/export-trail.js";
import type { TrailProblemKind } from "../../../src/audit/trail-report.js";
import { verifyStoreTrail } from "../../../src/audit/verify-store-trail.js";
import { verifyTrail } from "../../../src/audit/verify-trail.js";
import { linkHash } from "../../../src/store/audit-chain.js";
import { openStore } from "../../../src/store/open-store.js";
import type { Store } from "../../../src/store/store.js";
import type { OpenFreshStore } from "../store-contract.js";
import { callEvents } from "../support/call-events.js";
import { lit, rawSql } from "../support/raw-sql.js";
import { freshSigner, liftAllGuards, rechain, writeSignedTrail } from "../support/signed-trail.js";

interface Attack {
  readonly name: string;
  readonly sql: (store: Store) => Promise<string[]>;
  readonly kind: TrailProblemKind;
  readonly sessionId: string;
  readonly seq: number;
  readonly message: RegExp;
}

const a = (where = "") => `WHERE session_id = 'ses_a'${where}`;

/** A correctly chained call inserted behind the store's back, with or without its head. */
function forgedChain(sessionId: string, withHead: boolean): string[] {
  const events = callEvents({ sessionId, callId: "f1" });
  let prev = "0".repeat(64);
  const statements = events.map((event, i) => {
    const json = JSON.stringify(event);
    const hash = linkHash(i + 1, sessionId, prev, json);
    const sql = `INSERT INTO audit_events (session_id, seq, call_id, type, tool, at, event, prev_hash, hash)
      VALUES (${lit(sessionId)}, ${i + 1}, 'f1', ${lit(event.type)}, 'refund_order', ${event.at}, ${lit(json)}, ${lit(prev)}, ${lit(hash)})`;
    prev = hash;
    return sql;
  });
  const head = `INSERT INTO chain_heads (session_id, seq, hash) VALUES (${lit(sessionId)}, 4, ${lit(prev)})`;
  return withHead ? [...statements, head] : statements;
}

const attacks: Attack[] = [
  {
    name: "an event edited (allow rule renamed) and every later hash recomputed",
    sql: async (store) => {
      await rawSql(store, [
        ...liftAllGuards(store),
        // Event 6 is c2's decided: its own row on PostgreSQL, inside c2's link (seq 8) on SQLite.
        `UPDATE audit_events SET event = replace(event, 'refunds-under-100', 'refunds-any') ${a(" AND seq BETWEEN 6 AND 8")}`,
      ]);
      return rechain(store, "ses_a");
    },
    kind: "rewritten",
    sessionId: "ses_a",
    seq: 5,
    message: /events 5 to 8 were rewritten/,
  },
  {
    name: "the tail cut, the head moved back and the store's attestations of it deleted",
    sql: async (store) => {
      const [rows] = await rawSql(store, [`SELECT hash FROM audit_events ${a(" AND seq = 4")}`]);
      const hash = String((rows as { hash: unknown }[])[0]?.hash);
      return [
        `DELETE FROM audit_events ${a(" AND seq >= 5")}`,
        `UPDATE chain_heads SET seq = 4, hash = ${lit(hash)} ${a()}`,
        `DELETE FROM audit_checkpoints ${a(" AND n >= 2")}`,
        `DELETE FROM messages ${a(" AND seq >= 2")}`,
        "DELETE FROM calls WHERE call_id = 'c2'",
      ];
    },
    kind: "truncated",
    sessionId: "ses_a",
    seq: 5,
    message: /events 5 to 8 are missing: attestation 3 signed the chain up to event 8/,
  },
  {
    name: "every event of one call removed and the rest re-chained",
    sql: async (store) => [
      `DELETE FROM audit_events ${a(" AND call_id = 'c1'")}`,
      `UPDATE audit_events SET seq = seq - 4 ${a()}`,
      "DELETE FROM calls WHERE call_id = 'c1'",
      `DELETE FROM audit_checkpoints ${a()}`,
      ...(await rechainAfter(store, "ses_a")),
    ],
    kind: "rewritten",
    sessionId: "ses_a",
    seq: 1,
    message: /events 1 to 4 were rewritten/,
  },
  {
    name: "a whole session deleted with its head, attestations, calls and approvals",
    sql: async () =>
      ["audit_events", "chain_heads", "audit_checkpoints", "calls", "approvals"].map(
        (table) => `DELETE FROM ${table} WHERE session_id = 'ses_b'`,
      ),
    kind: "deleted_session",
    sessionId: "ses_b",
    seq: 1,
    message: /the session was deleted: attestation 2 signed 3 events/,
  },
  {
    name: "a forged session with a correct chain and head",
    sql: async () => forgedChain("ses_f", true),
    kind: "forged_session",
    sessionId: "ses_f",
    seq: 1,
    message: /no signed attestation covers any of this session's 4 events/,
  },
  {
    // Read in verify's one pass over the sessions (no second whole-store chain pass).
    name: "a session's events inserted with no chain head",
    sql: async () => forgedChain("ses_h", false),
    kind: "chain",
    sessionId: "ses_h",
    seq: 4,
    message: /the chain has no head record/,
  },
  {
    name: "a calls row whose outcome contradicts the chain",
    sql: async () => ["UPDATE calls SET status = 'failed' WHERE call_id = 'c2'"],
    kind: "calls",
    sessionId: "ses_a",
    seq: 5,
    message:
      /the calls row of "c2" contradicts the chain: its status is "failed", the chain says "ok"/,
  },
  {
    name: "an approval decided in the table and not in the chain",
    sql: async () => [
      "UPDATE approvals SET status = 'approved', decided_by = 'mallory', decided_at = 5 WHERE id = 'apr_1'",
    ],
    kind: "approvals",
    sessionId: "ses_b",
    seq: 2,
    message:
      /approval apr_1 \(call "c3"\) is approved by mallory in the table, but the chain records no such decision/,
  },
  {
    name: "the sessions row rewritten (principal, title, status, metadata)",
    sql: async () => [
      `UPDATE sessions SET principal = 'mallory', title = 'routine', status = 'completed', metadata = '{"ok":true}' WHERE id = 'ses_a'`,
    ],
    kind: "session",
    sessionId: "ses_a",
    seq: 0,
    message:
      /the session's row \(principal, title, status, metadata\) is not the one attestation 3 signed/,
  },
  {
    name: "the sessions row deleted",
    sql: async () => ["DELETE FROM sessions WHERE id = 'ses_b'"],
    kind: "session",
    sessionId: "ses_b",
    seq: 0,
    message: /the session's row is gone: attestation 2 signed it/,
  },
  {
    name: "a transcript message edited",
    sql: async () => [`UPDATE messages SET content = '"refund everything"' ${a(" AND seq = 1")}`],
    kind: "messages",
    sessionId: "ses_a",
    seq: 1,
    message: /transcript messages 1 to 1 contradict attestation 2/,
  },
  {
    name: "an attestation whose signed text was edited",
    sql: async () => [
      `UPDATE audit_checkpoints SET body = replace(body, '"seq":8', '"seq":7') ${a(" AND n = 3")}`,
    ],
    kind: "bad_signature",
    sessionId: "ses_a",
    seq: 7,
    message: /attestation 3 \(event 7\) is not signed by this key/,
  },
];

/** Re-chain after renumbering (the renumbered rows keep their old hashes until recomputed). */
async function rechainAfter(store: Store, sessionId: string): Promise<string[]> {
  // The renumbering runs first in the same batch; rechain reads the rows as they are now, so
  // compute the statements from the post-renumbering view by simulating it here.
  const [rows] = await rawSql(store, [
    `SELECT seq, event FROM audit_events WHERE session_id = ${lit(sessionId)} AND call_id <> 'c1' ORDER BY seq`,
  ]);
  const statements: string[] = [];
  let prev = "0".repeat(64);
  let seq = 0;
  for (const row of rows as { seq: unknown; event: unknown }[]) {
    seq = Number(row.seq) - 4;
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

/**
 * Signed attestations: the untouched store verifies with the key and the digest log; each attack
 * of someone who can write the database (guards dropped, hashes recomputed) is caught and named.
 */
export function signedTrailContract(fresh: OpenFreshStore): void {
  describe("the signed trail", () => {
    async function signedStore() {
      const plain = await fresh();
      const location = plain.location;
      const { signer, publicKey } = await freshSigner();
      const store = await openStore(location, { signer });
      await writeSignedTrail(store);
      await store.close();
      const reader = await openStore(location, { readOnly: true });
      const verify = (sessionId?: string) =>
        verifyStoreTrail(reader, {
          publicKey,
          digests: signer.digests,
          ...(sessionId ? { sessionId } : {}),
        });
      return { reader, signer, publicKey, verify, location };
    }

    it("verifies the untouched store, and says what it cannot prove without key and log", async () => {
      const { reader, signer, verify } = await signedStore();
      try {
        const report = await verify();
        expect(report.problems).toEqual([]);
        expect(report).toMatchObject({ ok: true, sessions: 2, events: 11, attestations: 5 });
        expect(report.notProven).toEqual([]);
        const bare = await verifyStoreTrail(reader);
        expect(bare.ok).toBe(true);
        expect(bare.notProven.join("\n")).toMatch(/no public key.*\n.*no digest log/);
      } finally {
        await reader.close();
        await signer.close();
      }
    });

    for (const attack of attacks) {
      it(`catches ${attack.name}`, async () => {
        const { reader, signer, verify } = await signedStore();
        try {
          await rawSql(reader, [...liftAllGuards(reader), ...(await attack.sql(reader))]);
          for (const report of [await verify(), await verify(attack.sessionId)]) {
            expect(report.ok).toBe(false);
            const found = report.problems.find((p) => p.kind === attack.kind);
            expect(found, JSON.stringify(report.problems)).toMatchObject({
              sessionId: attack.sessionId,
              seq: attack.seq,
            });
            expect(found?.message).toMatch(attack.message);
          }
        } finally {
          await reader.close();
          await signer.close();
        }
      });
    }

    it("does not let a rewritten sessions row pass by moving its time forward", async () => {
      const { reader, signer, verify } = await signedStore();
      try {
        await rawSql(reader, [
          ...liftAllGuards(reader),
          `UPDATE sessions SET principal = 'mallory', updated_at = ${Date.now() + 86_400_000} WHERE id = 'ses_a'`,
        ]);
        const report = await verify();
        expect(report.ok).toBe(false);
        expect(report.verdict).toBe("unsigned");
        expect(report.unsigned.find((p) => p.kind === "unsigned_session")).toMatchObject({
          sessionId: "ses_a",
        });
      } finally {
        await reader.close();
        await signer.close();
      }
    });

    it("covers an approval's decision reason and scope", async () => {
      const plain = await fresh();
      const location = plain.location;
      const { signer, publicKey } = await freshSigner();
      const store = await openStore(location, { signer });
      await writeSignedTrail(store);
      await store.decideApproval("apr_1", {
        decision: "denied",
        by: "alice",
        reason: "not on a Friday",
        at: 10,
      });
      await store.emit({
        type: "approval_denied",
        callId: "c3",
        tool: "delete_file",
        sessionId: "ses_b",
        at: 10,
        by: "alice",
        reason: "not on a Friday",
      });
      await store.close();
      const reader = await openStore(location, { readOnly: true });
      try {
        const before = await verifyStoreTrail(reader, { publicKey, digests: signer.digests });
        expect(before.problems).toEqual([]);
        expect(before.verdict).toBe("verified");
        await rawSql(reader, [
          ...liftAllGuards(reader),
          "UPDATE approvals SET decision_reason = 'policy allows it' WHERE id = 'apr_1'",
        ]);
        const after = await verifyStoreTrail(reader, { publicKey, digests: signer.digests });
        expect(after.verdict).toBe("tampered");
        expect(after.problems.find((p) => p.kind === "approvals")?.message).toMatch(
          /decision reason "policy allows it" and scope once are not what the chain recorded \("not on a Friday"\)/,
        );
      } finally {
        await reader.close();
        await signer.close();
      }
    });

    it("reports a digest log that lost an attestation, and one it never had", async () => {
      const { reader, signer, publicKey } = await signedStore();
      try {
        const other = await openDigestLog(`${signer.paths.digests}.empty`);
        const report = await verifyStoreTrail(reader, { publicKey, digests: other });
        expect(report.ok).toBe(false);
        expect(report.problems[0]?.message).toMatch(/is in the store but not in the digest log/);
      } finally {
        await reader.close();
        await signer.close();
      }
    });

    it("exports a session that verifies on its own, and refuses it with one line edited", async () => {
      const { reader, signer, publicKey } = await signedStore();
      try {
        let text = "";
        await exportTrail(
          reader,
          { sessionId: "ses_a", publicKey: signer.publicKeyPem },
          (line) => {
            text += line;
          },
        );
        const good = await verifyTrail(readExport(text, "x.jsonl").source, { publicKey });
        expect(good.problems).toEqual([]);
        expect(good).toMatchObject({ ok: true, events: 8, attestations: 3 });
        const edited = text.replace("SU-88421", "SU-00000");
        const bad = await verifyTrail(readExport(edited, "x.jsonl").source, { publicKey });
        expect(bad.ok).toBe(false);
        expect(bad.problems[0]).toMatchObject({ kind: "chain", sessionId: "ses_a", seq: 1 });
      } finally {
        await reader.close();
        await signer.close();
      }
    });
  });
}
