import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import type { Decision } from "../../src/policy/policy.js";
import { canonicalJson } from "../../src/shared/canonical-json.js";
import { openStore } from "../../src/store/open-store.js";
import { defineTool } from "../../src/tool/define-tool.js";

// Oracle: the first call under an id owns it. A later call under that id with another tool or
// other arguments is neither decided, asked nor run, whatever the owner's state (ran, refused,
// waiting for an approval), through dispatch or preflight; and the trail verifies afterwards.
const command = fc.record({
  id: fc.constantFrom("a", "b"),
  tool: fc.constantFrom("refund", "get_order"),
  order: fc.constantFrom("SU-1", "SU-2"),
  decision: fc.constantFrom<Decision>("allow", "ask", "deny"),
  entry: fc.constantFrom("dispatch", "preflight"),
});

describe("a reused call id, property", () => {
  it("never decides, asks or runs another call under an id the store holds", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-reused-prop-"));
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 8 }), async (commands) => {
          run += 1;
          const store = await openStore(`sqlite:${join(dir, `run-${run}.db`)}`);
          try {
            const session = await store.createSession({ principal: "agent", configHash: "x" });
            const decided: string[] = [];
            const asked: string[] = [];
            const ran: string[] = [];
            let decision: Decision = "allow";
            const handler = (name: string) => (args: unknown) => {
              ran.push(`${name} ${canonicalJson(args)}`);
              return "done";
            };
            const checkpoint = createCheckpoint({
              tools: [
                defineTool({
                  name: "refund",
                  description: "Refund an order.",
                  input: z.object({ order_id: z.string() }),
                  writes: true,
                  handler: handler("refund"),
                }),
                defineTool({
                  name: "get_order",
                  description: "Look an order up.",
                  input: z.object({ order_id: z.string() }),
                  writes: false,
                  handler: handler("get_order"),
                }),
              ],
              store,
              policy: (request) => {
                decided.push(request.callId);
                return { decision };
              },
              approvals: (request) => {
                asked.push(request.callId);
                return { decision: "pending", approvalId: `apr_${asked.length}` };
              },
            });
            const owners = new Map<string, string>();
            for (const c of commands) {
              const identity = `${c.tool} ${canonicalJson({ order_id: c.order })}`;
              const owner = owners.get(c.id) ?? identity;
              owners.set(c.id, owner);
              decision = c.decision;
              const [decidedBefore, askedBefore, ranBefore] = [
                decided.length,
                asked.length,
                ran.length,
              ];
              const call = {
                id: c.id,
                name: c.tool,
                arguments: JSON.stringify({ order_id: c.order }),
              };
              const ctx = { sessionId: session.id };
              const result =
                c.entry === "dispatch"
                  ? await checkpoint.dispatch(call, ctx)
                  : await checkpoint.preflight(call, ctx);
              if (owner !== identity) {
                expect(result).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
                expect(decided.length).toBe(decidedBefore);
                expect(asked.length).toBe(askedBefore);
                expect(ran.length).toBe(ranBefore);
              }
            }
            // Only an owner ran, and at most once per id.
            for (const line of ran) expect([...owners.values()]).toContain(line);
            expect(ran.length).toBeLessThanOrEqual(owners.size);
            const report = await verifyStoreTrail(store, { sessionId: session.id });
            expect(report.problems).toEqual([]);
          } finally {
            await store.close();
          }
        }),
        { numRuns: 40 },
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
