import type { Store } from "../src/store/store.js";

/**
 * The calls through which a run keeps its calls' trail and its turns' transcript: the checkpoint's
 * events and call ledger, and the loop's batches. Everything else (sessions, leases, the run's
 * start and end) stays the store's.
 */
const KEEPS_NOTHING = {
  emit: async () => {},
  emitMany: async () => {},
  prefetchCalls: async () => {},
  claimCall: async () => ({ status: "claimed" as const }),
  recordCallResult: async () => {},
  callOutcome: async () => undefined,
  findDuplicate: async () => undefined,
  awaitsCommit: () => false,
  commitQueued: async () => {},
  queueBatch: async () => {},
  queueSessionUpdate: async () => {},
} satisfies Partial<Store>;

/**
 * A store that keeps nothing per call: no event, no calls row, no transcript batch, so no commit
 * during a run but its start and its end. Not a docket configuration: the bench's bound on what
 * any audit trail could cost (`DOCKET_BENCH_LOOP=ceiling`), docket's loop and checkpoint as they
 * are, beside a trail that costs nothing. Every other method is the store's own, bound once, so
 * the wrapper adds no work to a call.
 *
 * @example
 * ```ts
 * import { openStore } from "../src/store/open-store.js";
 * const store = untrackedStore(await openStore(":memory:"));
 * const { id } = await store.createSession({ principal: "p", configHash: "" }); // the store's own
 * await store.emit({ type: "requested", at: 0, sessionId: id, callId: "c1", tool: "noop",
 *   principal: "p", rawArguments: "{}", rawBytes: 2 }); // kept nowhere
 * ```
 */
export function untrackedStore(store: Store): Store {
  const wrapper: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (
    let at: object | null = store;
    at && at !== Object.prototype;
    at = Object.getPrototypeOf(at)
  ) {
    for (const key of Object.getOwnPropertyNames(at)) {
      if (key === "constructor" || seen.has(key)) continue;
      seen.add(key);
      const descriptor = Object.getOwnPropertyDescriptor(at, key) as PropertyDescriptor;
      if (typeof descriptor.value === "function") {
        wrapper[key] = (descriptor.value as (...args: unknown[]) => unknown).bind(store);
      } else {
        // A field or a getter (`owner`, `location`): read from the store each time.
        Object.defineProperty(wrapper, key, {
          get: () => (store as unknown as Record<string, unknown>)[key],
          enumerable: true,
        });
      }
    }
  }
  return Object.assign(wrapper, KEEPS_NOTHING) as unknown as Store;
}
