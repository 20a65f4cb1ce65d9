import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countWalCommits } from "../../bench/wal-commits.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { openStore } from "../../src/store/open-store.js";
import { defineTool } from "../../src/tool/define-tool.js";

/**
 * One call of a batch: a write, a write with a dedupe key (`n`: few keys, so actions repeat
 * under other ids) or a read, and its id (few ids, so they repeat).
 */
const call = fc.record({
  tool: fc.constantFrom("note", "refund", "look"),
  id: fc.constantFrom("a", "b", "c", "d", "e", "f"),
  n: fc.integer({ min: 0, max: 3 }),
});
const writes = (c: { tool: string }) => c.tool !== "look";

describe("writes committed with their claims (property, SQLite file store)", () => {
  it("run each call id and each dedupe key at most once, never without a committed intent, in at most two commits a write, with a chain that verifies", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(call, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }),
        fc.subarray(["a", "b", "c", "d", "e", "f"]),
        async (batches, heldElsewhere) => {
          const dir = mkdtempSync(join(tmpdir(), "docket-write-commits-prop-"));
          const path = join(dir, "docket.db");
          const store = await openStore(`sqlite:${path}`);
          const other = await openStore(`sqlite:${path}`);
          try {
            const session = await store.createSession({ principal: "agent", configHash: "" });
            // Another process holds these ids (claimed, still running): none may run here.
            for (const id of heldElsewhere) {
              await other.claimCall(session.id, id, { tool: "note", writes: true });
            }
            const ran = new Map<string, number>();
            const refunded = new Map<number, number>();
            let writesRun = 0;
            const handler = ({ n }: { n: number }, ctx: { callId: string }) => {
              ran.set(ctx.callId, (ran.get(ctx.callId) ?? 0) + 1);
              return n;
            };
            const input = z.object({ n: z.number() });
            const checkpoint = createCheckpoint({
              store,
              policy: () => ({ decision: "allow" }),
              tools: [
                defineTool({
                  name: "note",
                  description: "Writes.",
                  input,
                  writes: true,
                  handler: (args, ctx) => {
                    writesRun += 1;
                    return handler(args, ctx);
                  },
                }),
                defineTool({
                  name: "refund",
                  description: "Writes once per n.",
                  input,
                  writes: true,
                  dedupe: { key: ({ n }) => `refund:${n}` },
                  handler: (args, ctx) => {
                    writesRun += 1;
                    refunded.set(args.n, (refunded.get(args.n) ?? 0) + 1);
                    return handler(args, ctx);
                  },
                }),
                defineTool({ name: "look", description: "Reads.", input, writes: false, handler }),
              ],
            });
            const before = countWalCommits(`${path}-wal`);
            for (const batch of batches) {
              await checkpoint.dispatchBatch(
                batch.map((c) => ({
                  id: c.id,
                  name: c.tool,
                  arguments: JSON.stringify({ n: c.n }),
                })),
                { sessionId: session.id },
              );
            }
            const commits = countWalCommits(`${path}-wal`) - before;
            for (const [id, times] of ran) {
              expect(times, id).toBe(1);
              expect(heldElsewhere).not.toContain(id);
            }
            for (const [n, times] of refunded) expect(times, `refund:${n}`).toBe(1);
            // Each write call, with a dedupe key or not: at most two commits (run, answered as a
            // duplicate, or refused); each batch: one more for its reads, whether they ran or were
            // answered as repeats (nothing ran: no commit of its own).
            const writeCalls = batches.flat().filter(writes).length;
            expect(commits).toBeLessThanOrEqual(2 * writeCalls + batches.length);
            expect(writesRun).toBeLessThanOrEqual(writeCalls);
            expect((await store.verifyChain(session.id)).ok).toBe(true);
            const calls = await store.listCalls({ sessionId: session.id });
            for (const record of calls) {
              if (ran.has(record.callId)) expect(record.state).toBe("finished");
            }
          } finally {
            await other.close();
            await store.close();
            rmSync(dir, { recursive: true, force: true });
          }
        },
      ),
      {
        numRuns: 40,
        // Found by CI: a read re-delivered in a later batch once cost a commit of its own.
        examples: [
          [
            [
              [{ tool: "look", id: "f", n: 1 }],
              [
                { tool: "look", id: "f", n: 1 },
                { tool: "look", id: "a", n: 0 },
              ],
            ],
            [],
          ],
          // A dedupe write run, then the same action under another id, answered as a duplicate.
          [[[{ tool: "refund", id: "a", n: 1 }], [{ tool: "refund", id: "b", n: 1 }]], []],
        ],
      },
    );
  });
});
