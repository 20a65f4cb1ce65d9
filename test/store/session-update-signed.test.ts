import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { sessionRowHash } from "../../src/store/session-row-hash.js";
import { faultDirs, faultEngines } from "./support/fault-engines.js";
import { failingSigner, openSignedAt, verifyStoreAt } from "./support/signed-trail.js";
import { expectVerifiedThroughKill } from "./support/verified-through-kill.js";

// Issue 33 (ADR 0064): a session update used to commit its row before its attestation, so a
// process killed in between left `unsigned_session` after an ordinary crash.
const fields = ["status", "title", "metadata"] as const;
const dirs = faultDirs("docket-session-update-");
afterAll(dirs.cleanup);

describe.each(faultEngines)("a session update killed once acknowledged, on $name", (engine) => {
  it.skipIf(engine.skip).each(fields)(
    "a %s change: signed in its own commit, verified before and after a restart",
    async (field) => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      await expectVerifiedThroughKill(url, dir, "session-update-worker", [field]);

      const store = await openStore(url, { readOnly: true });
      try {
        const session = await store.getSession(`ses_${field}`);
        expect(session?.[field]).toBeDefined();
        const last = (await store.listAttestations(`ses_${field}`)).at(-1);
        // The last attestation signs the updated row, and was not left to recovery.
        expect(last?.sessionHash).toBe(sessionRowHash(session as NonNullable<typeof session>));
        expect(last?.recovered).toBeUndefined();
      } finally {
        await store.close();
      }
    },
    60_000,
  );

  it.skipIf(engine.skip)(
    "through the harness: a run killed as it returns, its final status signed",
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      await expectVerifiedThroughKill(url, dir, "harness-status-worker", []);
      const store = await openStore(url, { readOnly: true });
      try {
        const [session] = await store.listSessions({});
        expect(session?.status).toBe("completed");
        expect(await store.listCalls({ sessionId: session?.id })).toHaveLength(1);
      } finally {
        await store.close();
      }
    },
    60_000,
  );

  it.skipIf(engine.skip)(
    "an update whose attestation cannot be signed is not applied: row and signature commit together",
    async () => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const signed = await openSignedAt(url, dir);
      const created = await signed.store.createSession({
        id: "ses_kept",
        principal: "agent",
        configHash: "x",
      });
      await signed.close();
      const failing = failingSigner("the key is gone");
      const broken = await openStore(url, { signer: failing });
      try {
        await expect(
          broken.updateSession("ses_kept", { status: "failed", title: "changed" }),
        ).rejects.toThrow("the key is gone");
        expect(await broken.getSession("ses_kept")).toEqual(created);
      } finally {
        await broken.close().catch(() => undefined);
      }
      const report = await verifyStoreAt(url, dir);
      expect(report.problems).toEqual([]);
      expect(report.unsigned).toEqual([]);
    },
    60_000,
  );

  it.skipIf(engine.skip)("an update of a session that does not exist writes nothing", async () => {
    const dir = dirs.fresh();
    const url = engine.url(dir);
    const signed = await openSignedAt(url, dir);
    try {
      await expect(
        signed.store.updateSession("ses_none", { status: "completed" }),
      ).rejects.toMatchObject({ code: "unknown_session" });
      expect(await signed.store.listAttestations("ses_none")).toEqual([]);
    } finally {
      await signed.close();
    }
  });
});
