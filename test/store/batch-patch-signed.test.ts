import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAuditSigner } from "../../src/audit/create-audit-signer.js";
import { openStore } from "../../src/store/open-store.js";
import { sessionRowHash } from "../../src/store/session-row-hash.js";
import type { Store } from "../../src/store/store.js";
import { callEvents } from "./support/call-events.js";
import { faultDirs, faultEngines } from "./support/fault-engines.js";
import { failingSigner, openSignedAt, verifyStoreAt } from "./support/signed-trail.js";
import { expectVerifiedThroughKill } from "./support/verified-through-kill.js";

// Issue 33 (ADR 0067): a transcript batch that patches its session's row (the loop clearing its
// pending batch) committed before the attestation that signs it, so for up to the cadence's gap
// (and for good after a crash) verify read `unsigned_session` / `unsigned_messages`.
/** The cadence never signs within a test: only commits that sign in themselves do. */
const QUIET = { attestationIntervalMs: 600_000 };
const dirs = faultDirs("docket-batch-patch-");
afterAll(dirs.cleanup);

const assistant = { role: "assistant", content: { text: "", toolCalls: ["call_1"] } } as const;
const results = [{ role: "tool", content: { results: [{ callId: "call_1" }] } }] as const;
const patch = { sessionPatch: { metadata: {} } };

/** The ways a batch with a patch reaches its commit. */
const commits = {
  saveBatch: (store: Store, id: string) => store.saveBatch(id, assistant, results, patch),
  "queueBatch, then a flush": async (store: Store, id: string) => {
    await store.queueBatch(id, assistant, results, patch);
    await store.flush();
  },
  "queueBatch, committed with the next message": async (store: Store, id: string) => {
    await store.queueBatch(id, assistant, results, patch);
    await store.appendMessage(id, { role: "user", content: "and order 8?" });
  },
};

describe.each(faultEngines)("a transcript batch that patches its session, on $name", (engine) => {
  it.skipIf(engine.skip).each(Object.keys(commits) as (keyof typeof commits)[])(
    "%s: another connection verifies it signed the moment it returns",
    async (how) => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const { store, close } = await openSignedAt(url, dir, QUIET);
      try {
        const { id } = await store.createSession({ principal: "agent", configHash: "x" });
        await store.updateSession(id, { metadata: { pendingBatch: { callIds: ["call_1"] } } });
        await new Promise((resolve) => setTimeout(resolve, 5));
        await store.emitMany(callEvents({ sessionId: id, callId: "call_1" }));
        await commits[how](store, id);
        // No wait: the cadence (10 minutes) has not signed anything since.
        const report = await verifyStoreAt(url, dir);
        expect(report.problems).toEqual([]);
        expect(report.unsigned.filter((p) => p.kind !== "unsigned_messages")).toEqual([]);
        const reader = await openStore(url, { readOnly: true });
        try {
          const session = await reader.getSession(id);
          expect(session?.metadata).toEqual({});
          const last = (await reader.listAttestations(id)).at(-1);
          expect(last?.sessionHash).toBe(sessionRowHash(session as NonNullable<typeof session>));
          // The batch's own messages are signed with it (a later message may not be yet).
          expect(last?.messagesSeq).toBeGreaterThanOrEqual(2);
        } finally {
          await reader.close();
        }
      } finally {
        await close();
      }
    },
    60_000,
  );

  it.skipIf(engine.skip).each([
    ["queue", "events"],
    ["queue", "messages"],
    ["save", "events"],
    ["save", "messages"],
  ])(
    "killed once a %s batch (%s) is acknowledged: verified, before and after a restart",
    async (mode, withEvents) => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      await expectVerifiedThroughKill(url, dir, "batch-patch-worker", [mode, withEvents]);
    },
    60_000,
  );

  it.skipIf(engine.skip)(
    "a batch whose attestation cannot be signed is not kept: messages, patch and signature commit together",
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const signed = await openSignedAt(url, dir);
      const { id } = await signed.store.createSession({ principal: "agent", configHash: "x" });
      await signed.store.updateSession(id, { metadata: { pendingBatch: { callIds: ["c"] } } });
      await signed.close();
      const broken = await openStore(url, { signer: failingSigner("the key is gone") });
      try {
        await expect(broken.saveBatch(id, assistant, results, patch)).rejects.toThrow(
          "the key is gone",
        );
        expect(await broken.loadTranscript(id)).toEqual([]);
        expect((await broken.getSession(id))?.metadata).toEqual({
          pendingBatch: { callIds: ["c"] },
        });
      } finally {
        await broken.close().catch(() => undefined);
      }
      const report = await verifyStoreAt(url, dir);
      expect(report.problems).toEqual([]);
      expect(report.unsigned).toEqual([]);
    },
    60_000,
  );

  // The batch commits, with the events queued before it, then its attestation's copy to the
  // digest log fails. The commit stands: its events must not be queued again (they were
  // appended a second time by the next write), and the failure is said by the next write.
  it.skipIf(engine.skip)(
    "a batch that committed but whose digest copy failed: its queued events are kept once",
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const real = await createAuditSigner({
        keyFile: join(dir, "audit-key.pem"),
        digests: join(dir, "audit-digests.jsonl"),
        env: {},
      });
      let copyFails = false;
      const store = await openStore(url, {
        signer: {
          keyId: real.keyId,
          sign: (body) => real.sign(body),
          deliver: (attestations) => {
            if (copyFails) throw new Error("the digest log is unreachable");
            return real.deliver(attestations);
          },
        },
      });
      try {
        const { id } = await store.createSession({ principal: "agent", configHash: "x" });
        await store.updateSession(id, { metadata: { pendingBatch: { callIds: ["call_1"] } } });
        for (const event of callEvents({ sessionId: id, callId: "call_1", writes: false }))
          await store.emit(event, { defer: true });
        copyFails = true;
        await store.saveBatch(id, assistant, results, patch);
        copyFails = false;
        // The next write says the copy failed; the one after it goes, the copy delivered.
        await expect(
          store.appendMessage(id, { role: "user", content: "And then?" }),
        ).rejects.toThrow("the digest log is unreachable");
        await store.appendMessage(id, { role: "user", content: "And then?" });
        const events = await store.listEvents({ sessionId: id, limit: 100 });
        expect(events.map((e) => e.event.type)).toEqual([
          "requested",
          "decided",
          "started",
          "finished",
        ]);
        expect(await store.loadTranscript(id)).toHaveLength(3);
      } finally {
        await store.close().catch(() => undefined);
        await real.close();
      }
      const report = await verifyStoreAt(url, dir);
      expect(report.problems).toEqual([]);
    },
    60_000,
  );
});
