import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HandlerWatch } from "./handler-watch.js";
import { LateHandlers } from "./late-handlers.js";
import { runHandler } from "./run-handler.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TIMEOUT_MS = 25;

/**
 * How a handler behaves. Delays are far from the deadline (at most a fifth of it, or three times
 * it), so that a loaded machine cannot make "in time" and "late" trade places.
 */
type Behaviour =
  | { readonly kind: "sync_value" | "sync_throw" | "sync_thenable" | "then_throws" | "never" }
  | { readonly kind: "resolve" | "reject"; readonly late: boolean; readonly ms: number };

const behaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  fc
    .constantFrom("sync_value", "sync_throw", "sync_thenable", "then_throws", "never")
    .map((kind) => ({
      kind,
    })),
  fc.record({
    kind: fc.constantFrom("resolve", "reject"),
    late: fc.boolean(),
    ms: fc.integer({ min: 0, max: 5 }),
  }),
);

/** An object with a `then` method that is not a promise. */
function withThen(then: (...args: never[]) => unknown): object {
  // biome-ignore lint/suspicious/noThenProperty: odd thenables are what this test is about
  return Object.defineProperty({}, "then", { value: then });
}

function handlerOf(b: Behaviour): () => unknown {
  switch (b.kind) {
    case "sync_value":
      return () => "v";
    case "sync_throw":
      return () => {
        throw new Error("x");
      };
    case "sync_thenable":
      return () => withThen((ok: (v: unknown) => void) => ok("v"));
    case "then_throws":
      return () =>
        withThen(() => {
          throw new Error("then");
        });
    case "never":
      return () => new Promise(() => {});
    case "resolve":
    case "reject": {
      const ms = b.late ? TIMEOUT_MS * 3 + b.ms : b.ms;
      return () =>
        sleep(ms).then(() => {
          if (b.kind === "reject") throw new Error("r");
          return "v";
        });
    }
  }
}

/** The outcome a behaviour must get, and whether it must leave a late completion. */
function expected(b: Behaviour): { status: string; late: string | undefined } {
  switch (b.kind) {
    case "sync_value":
    case "sync_thenable":
      return { status: "returned", late: undefined };
    case "sync_throw":
    case "then_throws":
      return { status: "threw", late: undefined };
    case "never":
      return { status: "timeout", late: undefined };
    case "resolve":
      return b.late
        ? { status: "timeout", late: "returned" }
        : { status: "returned", late: undefined };
    case "reject":
      return b.late ? { status: "timeout", late: "threw" } : { status: "threw", late: undefined };
  }
}

describe("a batch's watch, whatever its handlers do (property)", () => {
  it("gives each call exactly the outcome its behaviour calls for, records each late end once, and leaves no timer", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(behaviour, { minLength: 1, maxLength: 6 }), async (behaviours) => {
        const before = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
        const late = new LateHandlers();
        const watch = new HandlerWatch(undefined, { late });
        const lates: string[][] = behaviours.map(() => []);
        const outcomes: string[] = [];
        try {
          for (const [i, b] of behaviours.entries()) {
            const target = { abort() {}, late: (o: string) => void lates[i]?.push(o) };
            const outcome = await runHandler(handlerOf(b), undefined, target, {
              timeoutMs: TIMEOUT_MS,
              signal: undefined,
              watch,
            });
            outcomes.push(outcome.status);
          }
        } finally {
          watch.close();
        }
        expect(outcomes).toEqual(behaviours.map((b) => expected(b).status));
        // Every late handler ends within 3 deadlines and a few ms; "never" ones stay tracked.
        await late.drain({ timeoutMs: TIMEOUT_MS * 4 });
        expect(lates).toEqual(behaviours.map((b) => (expected(b).late ? [expected(b).late] : [])));
        expect(late.size).toBe(behaviours.filter((b) => b.kind === "never").length);
        await sleep(1);
        const after = process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
        expect(after).toBeLessThanOrEqual(before);
      }),
      { numRuns: 25 },
    );
  }, 60_000);
});
