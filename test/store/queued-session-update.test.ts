import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createAuditSigner } from "../../src/audit/create-audit-signer.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { openStore } from "../../src/store/open-store.js";
import { sessionRowHash } from "../../src/store/session-row-hash.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import type { Store } from "../../src/store/store.js";
import type { StoreEvent } from "../../src/store/store-event.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { call, scriptOf, turn } from "../loop/support/model-script.js";
import { callEvents } from "./support/call-events.js";
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

/**
 * How a test's digest log behaves: `down` refuses each copy while it answers true, `delayMs`
 * slows each copy down (a network share).
 */
interface DigestLogFaults {
  down: () => boolean;
  delayMs?: () => number;
}

/** A signed SQLite store in `dir` whose digest log fails as `faults` says; `close` closes both. */
async function openWithDigestLog(dir: string, faults: DigestLogFaults) {
  const digests = join(dir, "audit-digests.jsonl");
  const real = await createAuditSigner({ keyFile: join(dir, "audit-key.pem"), digests, env: {} });
  const signer = {
    keyId: real.keyId,
    sign: (body: string) => real.sign(body),
    deliver: async (copies: Parameters<typeof real.deliver>[0]) => {
      const delay = faults.delayMs?.() ?? 0;
      if (delay > 0) await sleep(delay);
      if (faults.down()) throw new Error("the digest log is unreachable");
      await real.deliver(copies);
    },
  };
  const store = await openStore(`sqlite:${dir}/docket.db`, { signer, ...QUIET });
  const close = async () => {
    await store.close().catch(() => undefined);
    await real.close();
  };
  return { store, digests, close };
}

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

describe("a queued session update under faults (SQLite, signed)", () => {
  it("of one session is kept before its read's claim returns while another session's commit is in flight", async () => {
    const dir = dirs.fresh();
    const url = `sqlite:${dir}/docket.db`;
    // A slow digest log (a network share): each copy takes 200 ms.
    const { store, close } = await openWithDigestLog(dir, {
      down: () => false,
      delayMs: () => 200,
    });
    try {
      for (const id of ["ses_a", "ses_b", "ses_c"]) {
        await store.createSession({ id, principal: "agent", configHash: "x" });
      }
      // Session B's first write carries its pending batch; its copy is slow to deliver.
      await store.queueSessionUpdate("ses_b", { metadata: { pendingBatch: "B" } });
      const writeOfB = store.claimCall("ses_b", "b_w1", { tool: "refund", writes: true });
      await sleep(20);
      // Session A's reply opens with a read; session C's read waits on B's commit meanwhile.
      await store.queueSessionUpdate("ses_a", { metadata: { pendingBatch: "A" } });
      const readOfC = store.claimCall("ses_c", "c_r1", { tool: "lookup", defer: true });
      expect(await store.claimCall("ses_a", "a_r1", { tool: "lookup", defer: true })).toEqual({
        status: "claimed",
      });
      expect(await metadataElsewhere(url, "ses_a")).toEqual({ pendingBatch: "A" });
      await Promise.all([writeOfB, readOfC]);
    } finally {
      await close();
    }
  });

  it("whose signature the digest log keeps refusing: no handler of the batch runs", async () => {
    for (const first of ["write", "read"] as const) {
      const dir = dirs.fresh();
      let refusing = false;
      const { store, close } = await openWithDigestLog(dir, { down: () => refusing });
      const ran: string[] = [];
      const tool = (name: string, writes: boolean) =>
        defineTool({
          name,
          description: `${name} a thing.`,
          input: z.object({}),
          writes,
          handler: (_args, ctx) => {
            ran.push(ctx.callId);
            return "done";
          },
        });
      const calls =
        first === "write"
          ? [call("w1", "refund"), call("r1", "lookup")]
          : [call("r1", "lookup"), call("w1", "refund")];
      const harness = createHarness({
        model: createScriptedModel(scriptOf([turn("Working.", ...calls), turn("Done.")])),
        tools: [tool("refund", true), tool("lookup", false)],
        policy: () => ({ decision: "allow", rule: "test" }),
        store,
      });
      try {
        const { id } = await store.createSession({ principal: "agent", configHash: "x" });
        await harness
          .run("Go.", {
            sessionId: id,
            // The reply is in: from the pending batch's copy on, the digest log is down.
            onEvent: (event) => {
              if (event.type === "tool_call") refusing = true;
            },
          })
          .catch(() => undefined);
        // Refused before its handler, each (a write first: the run stops as well).
        expect(ran, `${first} first`).toEqual([]);
        const calls = await store.listCalls({ sessionId: id });
        expect(
          calls.filter((c) => c.outcome?.status === "ok"),
          `${first} first`,
        ).toEqual([]);
      } finally {
        refusing = false;
        await close();
      }
    }
  });

  it("that could not be queued (the store's last write failed) is not applied later", async () => {
    const dir = dirs.fresh();
    const file = join(dir, "docket.db");
    const store = await openStore(`sqlite:${file}?busy_timeout=0`);
    try {
      const { id } = await store.createSession({ principal: "agent", configHash: "x" });
      // Another process holds the write lock: the queue's next write fails.
      const other = openNodeSqlite(file);
      other.exec("BEGIN IMMEDIATE");
      await store.flush();
      await store.emit(callEvents({ sessionId: id, callId: "c1" })[0] as StoreEvent, {
        defer: true,
      });
      await expect(store.flush()).rejects.toThrow();
      await expect(
        store.queueSessionUpdate(id, { metadata: { pendingBatch: "abandoned" } }),
      ).rejects.toThrow();
      other.exec("ROLLBACK");
      other.close();
      await store.flush();
      expect((await store.getSession(id))?.metadata).toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("kept by another session's commit whose digest copy failed, and that failure told elsewhere: its own call waits for the copy", async () => {
    for (const [kind, logRecovers] of [
      ["write", true],
      ["read", true],
      ["write", false],
      ["read", false],
    ] as const) {
      const dir = dirs.fresh();
      let refusals = 0;
      const { store, digests, close } = await openWithDigestLog(dir, {
        down: () => refusals > 0 && refusals-- > 0,
      });
      const what = `${kind}, the log ${logRecovers ? "back" : "still down"}`;
      try {
        for (const id of ["ses_a", "ses_b"]) {
          await store.createSession({ id, principal: "agent", configHash: "x" });
        }
        await store.queueSessionUpdate("ses_b", { metadata: { pendingBatch: "B" } });
        // A's write claim commits B's update, signed; the copy of that signature fails.
        refusals = 1;
        await store.claimCall("ses_a", "a_w1", { tool: "refund", writes: true }).catch(() => {});
        // The failure is told to another write, not to session B.
        await store
          .createSession({ id: "ses_c", principal: "agent", configHash: "x" })
          .catch(() => {});
        refusals = logRecovers ? 0 : 10;
        const claimOfB =
          kind === "write"
            ? store.claimCall("ses_b", "b_1", { tool: "refund", writes: true })
            : store.claimCall("ses_b", "b_1", { tool: "lookup", defer: true });
        if (logRecovers) {
          expect(await claimOfB, what).toEqual({ status: "claimed" });
          // When B's handler may run, every signature of B is in the digest log.
          const reader = openNodeSqlite(join(dir, "docket.db"));
          const signatures = reader
            .prepare("SELECT signature FROM audit_checkpoints WHERE session_id = 'ses_b'")
            .all() as { signature: string }[];
          reader.close();
          const log = readFileSync(digests, "utf8");
          expect(
            signatures.filter(({ signature }) => !log.includes(signature)),
            what,
          ).toEqual([]);
        } else {
          await expect(claimOfB, what).rejects.toThrow("the digest log is unreachable");
        }
      } finally {
        refusals = 0;
        await close();
      }
    }
  });

  it("whose failed copy another write is still retrying: its own call waits for that copy", async () => {
    const dir = dirs.fresh();
    let refusals = 0;
    let delayMs = 0;
    const { store, close } = await openWithDigestLog(dir, {
      down: () => refusals > 0 && refusals-- > 0,
      delayMs: () => delayMs,
    });
    try {
      for (const id of ["ses_a", "ses_b", "ses_c"]) {
        await store.createSession({ id, principal: "agent", configHash: "x" });
      }
      await store.queueSessionUpdate("ses_b", { metadata: { pendingBatch: "B" } });
      refusals = 1;
      await store.claimCall("ses_a", "a_w1", { tool: "refund", writes: true }).catch(() => {});
      await store
        .createSession({ id: "ses_d", principal: "agent", configHash: "x" })
        .catch(() => {});
      // The log is down and slow; session C's update carries B's signature in its copy.
      refusals = 100;
      delayMs = 100;
      const updateOfC = store.updateSession("ses_c", { metadata: { step: 1 } }).catch(() => {});
      await sleep(20);
      await expect(
        store.claimCall("ses_b", "b_1", { tool: "refund", writes: true }),
      ).rejects.toThrow("the digest log is unreachable");
      await updateOfC;
    } finally {
      refusals = 0;
      delayMs = 0;
      await close();
    }
  });

  it("carried by a claim whose id is taken: answered seen, its intent not marked failed, whatever the log", async () => {
    const dir = dirs.fresh();
    let down = false;
    const { store, close } = await openWithDigestLog(dir, { down: () => down });
    try {
      await store.createSession({ id: "ses_b", principal: "agent", configHash: "x" });
      expect(await store.claimCall("ses_b", "b_1", { tool: "refund", writes: true })).toEqual({
        status: "claimed",
      });
      await store.queueSessionUpdate("ses_b", { metadata: { pendingBatch: "B" } });
      down = true;
      // The same id again, its first call still open: nothing of this one is written or runs.
      expect(await store.claimCall("ses_b", "b_1", { tool: "refund", writes: true })).toMatchObject(
        { status: "seen", state: "claimed" },
      );
    } finally {
      down = false;
      await close();
    }
  });
});
