import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { sessionRowHash } from "../../src/store/session-row-hash.js";
import type { Store } from "../../src/store/store.js";
import { faultDirs, faultEngines } from "./support/fault-engines.js";
import { openSignedAt, verifyStoreAt } from "./support/signed-trail.js";
import { expectVerifiedThroughKill } from "./support/verified-through-kill.js";

// `queueSessionUpdate`: the loop's pending batch rides in the first write's claim instead of a
// commit of its own (ADR 0084). Queued, it is kept before any handler can run, and signed in the
// commit that keeps it, whichever commit that is.
/** The cadence never signs within a test: only commits that sign in themselves do. */
const QUIET = { attestationIntervalMs: 600_000 };
const dirs = faultDirs("docket-queued-update-");
afterAll(dirs.cleanup);

const pending = { pendingBatch: { callIds: ["call_1", "call_2"] } };

/** What another connection reads of the session's metadata. */
async function metadataElsewhere(url: string, id: string): Promise<unknown> {
  const reader = await openStore(url, { readOnly: true });
  try {
    return (await reader.getSession(id))?.metadata;
  } finally {
    await reader.close();
  }
}

/** The calls after which a queued update must be kept, and signed in that commit. */
const keptBy: Record<string, (store: Store, id: string) => Promise<unknown>> = {
  "a write's claim": (store, id) => store.claimCall(id, "call_1", { tool: "refund", writes: true }),
  "a read's deferred claim": (store, id) =>
    store.claimCall(id, "call_1", { tool: "lookup", defer: true }),
  "a flush": (store) => store.flush(),
};

describe.each(faultEngines)("a queued session update, on $name", (engine) => {
  it.skipIf(engine.skip).each(Object.keys(keptBy))(
    "is kept and signed by %s, before it returns",
    async (how) => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      const { store, close } = await openSignedAt(url, dir, QUIET);
      try {
        const { id } = await store.createSession({ principal: "agent", configHash: "x" });
        await new Promise((resolve) => setTimeout(resolve, 5));
        await store.queueSessionUpdate(id, { metadata: pending });
        await keptBy[how]?.(store, id);
        expect(await metadataElsewhere(url, id)).toEqual(pending);
        const report = await verifyStoreAt(url, dir);
        expect(report.problems).toEqual([]);
        expect(report.unsigned).toEqual([]);
        const reader = await openStore(url, { readOnly: true });
        try {
          const session = await reader.getSession(id);
          const last = (await reader.listAttestations(id)).at(-1);
          expect(last?.sessionHash).toBe(sessionRowHash(session as NonNullable<typeof session>));
        } finally {
          await reader.close();
        }
      } finally {
        await close();
      }
    },
    60_000,
  );

  it.skipIf(engine.skip).each(["write", "read"])(
    "killed once a %s's claim is acknowledged: the update is kept and verified, before and after a restart",
    async (kind) => {
      const dir = dirs.fresh();
      const url = engine.url(dir);
      await expectVerifiedThroughKill(url, dir, "claim-patch-worker", [kind]);
      expect(await metadataElsewhere(url, "ses_claim")).toEqual({
        pendingBatch: { callIds: ["call_1"] },
      });
    },
    60_000,
  );

  it.skipIf(engine.skip)(
    "is refused as updateSession is: an unknown session, an unknown status, metadata that is not JSON",
    async () => {
      const dir = dirs.fresh();
      const store = await openStore(engine.url(dir));
      try {
        await expect(store.queueSessionUpdate("ses_none", { metadata: {} })).rejects.toMatchObject({
          code: "unknown_session",
        });
        const { id } = await store.createSession({ principal: "agent", configHash: "x" });
        await expect(
          store.queueSessionUpdate(id, { status: "finished" as never }),
        ).rejects.toMatchObject({ code: "invalid_session" });
        await expect(
          store.queueSessionUpdate(id, { metadata: { n: 1n } as never }),
        ).rejects.toMatchObject({ code: "invalid_session" });
        // Nothing of the refused updates was queued: the next commit keeps the row as it was.
        await store.flush();
        expect((await store.getSession(id))?.metadata).toBeUndefined();
      } finally {
        await store.close();
      }
    },
    60_000,
  );
});

describe("a queued session update on SQLite", () => {
  it("waits for the next commit: another connection does not see it before, and sees it in order after", async () => {
    const dir = dirs.fresh();
    const url = `sqlite:${dir}/docket.db`;
    const store = await openStore(url);
    try {
      const { id } = await store.createSession({ principal: "agent", configHash: "x" });
      await store.queueSessionUpdate(id, { metadata: pending });
      await store.queueSessionUpdate(id, { metadata: { step: 2 } });
      expect(await metadataElsewhere(url, id)).toBeUndefined();
      await store.flush();
      expect(await metadataElsewhere(url, id)).toEqual({ step: 2 });
    } finally {
      await store.close();
    }
  });
});
