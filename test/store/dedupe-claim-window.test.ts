import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { faultDirs, faultEngines } from "./support/fault-engines.js";

// A write with a dedupe key looks for an earlier success of its action before its claim (so
// the claim and the intent share a commit) and, for a write, again after it: a claim can wait
// (a round trip, another process's commit), and a success committed while it waited must still
// answer the call, as it did when the only look came after the claim (ADR 0080).
const dirs = faultDirs("docket-dedupe-window-");
afterAll(dirs.cleanup);

/** The store, with call `b`'s claim held until `a` has finished and its success is committed. */
function claimAfter(store: Store, first: () => Promise<unknown>, started: () => void): Store {
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop === "claimCall") {
        return async (...args: Parameters<Store["claimCall"]>) => {
          if (args[1] === "b") {
            started();
            await first();
          }
          return target.claimCall(...args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe.each(faultEngines)("a dedupe write whose claim waited, on $name", (engine) => {
  it.skipIf(engine.skip)(
    "is answered with the success committed meanwhile, not run again, and the trail verifies",
    async () => {
      const store = await openStore(engine.url(dirs.fresh()));
      try {
        const session = await store.createSession({ principal: "agent", configHash: "" });
        let release: () => void = () => undefined;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        let refunds = 0;
        let first: Promise<unknown> = Promise.resolve();
        const checkpoint = createCheckpoint({
          store: claimAfter(
            store,
            () => first,
            () => release(),
          ),
          policy: () => ({ decision: "allow" }),
          tools: [
            defineTool({
              name: "refund",
              description: "Refunds an order once.",
              input: z.object({ order: z.string() }),
              writes: true,
              dedupe: { key: ({ order }) => `refund:${order}` },
              handler: async (_args, ctx) => {
                refunds += 1;
                // `a` finishes only once `b` looked (nothing yet) and waits on its claim.
                if (ctx.callId === "a") await gate;
                return "rf_1";
              },
            }),
          ],
        });
        const call = (id: string) =>
          checkpoint.dispatch(
            { id, name: "refund", arguments: '{"order":"SU-1"}' },
            { sessionId: session.id },
          );
        first = call("a");
        await new Promise((resolve) => setTimeout(resolve, 50));
        const second = await call("b");
        expect(await first).toMatchObject({ status: "ok", output: "rf_1" });
        expect(second).toMatchObject({ status: "ok", output: "rf_1" });
        expect(second.message).toContain("duplicate: not run again");
        expect(refunds).toBe(1);
        expect((await store.verifyChain(session.id)).ok).toBe(true);
        const calls = await store.listCalls({ sessionId: session.id });
        expect(calls.map((c) => [c.callId, c.state, c.status]).sort()).toEqual([
          ["a", "finished", "ok"],
          ["b", "finished", "ok"],
        ]);
      } finally {
        await store.close();
      }
    },
  );
});
