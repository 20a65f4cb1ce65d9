import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import type { Decision } from "../../src/policy/policy.js";
import { openStore } from "../../src/store/open-store.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";

// A call that waited for an approval comes back under its id and is cleared for its host to run
// (a hook's second PreToolUse): its claim is no event, so the calls row is open while the chain
// ends at the wait. That is no tampering, before the host reports and after.
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** A checkpoint with one write tool, its policy's decision as `decide` says, approvals pending. */
function refundDesk(store: Store, decide: () => Decision) {
  return createCheckpoint({
    tools: [
      defineTool({
        name: "refund",
        description: "Refund an order.",
        input: z.object({ order_id: z.string().describe("the order") }),
        writes: true,
        handler: () => "done",
      }),
    ],
    store,
    policy: () => ({ decision: decide() }),
    approvals: () => ({ decision: "pending", approvalId: "apr_1" }),
  });
}

describe("a call cleared for its host after waiting for an approval", () => {
  it.each(["dispatch", "preflight"] as const)("verifies, first asked through %s", async (first) => {
    const dir = await mkdtemp(join(tmpdir(), "docket-cleared-after-wait-"));
    dirs.push(dir);
    const store = await openStore(`sqlite:${join(dir, "d.db")}`);
    try {
      const session = await store.createSession({ principal: "agent", configHash: "x" });
      let decision: Decision = "ask";
      const checkpoint = refundDesk(store, () => decision);
      const call = { id: "a", name: "refund", arguments: '{"order_id":"SU-1"}' };
      const ctx = { sessionId: session.id };
      expect((await checkpoint[first](call, ctx)).status).toBe("awaiting_approval");
      decision = "allow";
      expect((await checkpoint.preflight(call, ctx)).status).toBe("cleared");
      const cleared = await verifyStoreTrail(store, { sessionId: session.id });
      expect(cleared.problems).toEqual([]);
      expect(cleared.verdict).toBe("verified");
      await checkpoint.recordOutcome({
        callId: "a",
        name: "refund",
        sessionId: session.id,
        status: "ok",
        output: "done",
      });
      const ran = await verifyStoreTrail(store, { sessionId: session.id });
      expect(ran.problems).toEqual([]);
      const [row] = await store.listCalls({ sessionId: session.id });
      expect(row?.state).toBe("finished");
    } finally {
      await store.close();
    }
  });

  it("a waiting call's row claimed with no second request on the chain is an edit", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-cleared-after-wait-"));
    dirs.push(dir);
    const file = join(dir, "d.db");
    const store = await openStore(`sqlite:${file}`);
    try {
      const session = (await store.createSession({ principal: "agent", configHash: "x" })).id;
      const checkpoint = refundDesk(store, () => "ask");
      const call = { id: "a", name: "refund", arguments: '{"order_id":"SU-1"}' };
      await checkpoint.preflight(call, { sessionId: session });
      expect((await verifyStoreTrail(store, { sessionId: session })).problems).toEqual([]);
      // Another connection edits the row as a hook's claim would leave it, with nothing on the
      // chain that brought the call back.
      const db = openNodeSqlite(file);
      db.prepare("UPDATE calls SET state = 'claimed' WHERE call_id = 'a'").run();
      db.close();
      const report = await verifyStoreTrail(store, { sessionId: session });
      expect(report.problems.map((problem) => problem.message)).toEqual([
        'the calls row of "a" contradicts the chain: its state is claimed, the chain says finished',
      ]);
    } finally {
      await store.close();
    }
  });
});
