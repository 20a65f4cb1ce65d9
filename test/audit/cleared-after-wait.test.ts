import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import type { Decision } from "../../src/policy/policy.js";
import { openStore } from "../../src/store/open-store.js";
import { defineTool } from "../../src/tool/define-tool.js";

// A call that waited for an approval comes back under its id and is cleared for its host to run
// (a hook's second PreToolUse): its claim is no event, so the calls row is open while the chain
// ends at the wait. That is no tampering, before the host reports and after.
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("a call cleared for its host after waiting for an approval", () => {
  it.each(["dispatch", "preflight"] as const)("verifies, first asked through %s", async (first) => {
    const dir = await mkdtemp(join(tmpdir(), "docket-cleared-after-wait-"));
    dirs.push(dir);
    const store = await openStore(`sqlite:${join(dir, "d.db")}`);
    try {
      const session = await store.createSession({ principal: "agent", configHash: "x" });
      let decision: Decision = "ask";
      const checkpoint = createCheckpoint({
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
        policy: () => ({ decision }),
        approvals: () => ({ decision: "pending", approvalId: "apr_1" }),
      });
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
});
