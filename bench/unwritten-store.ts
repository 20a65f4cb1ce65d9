import type { Store } from "../src/store/store.js";
import type { StoreEvent } from "../src/store/store-event.js";
import type { ClaimCommit, WritePathEngine } from "../src/store/write-path-engine.js";

/** Which of a call's events still reach the store's queue. */
export type UnwrittenEvents = "all" | "one-a-read";

const RESOLVED: Promise<void> = Promise.resolve();

/** A call's steps before its end that a read call has: `requested`, `decided`, a `started` that writes nothing. */
function isReadStepBeforeItsEnd(event: StoreEvent): boolean {
  if (event.type === "requested" || event.type === "decided") return true;
  return event.type === "started" && event.writes !== true;
}

/**
 * docket's own store with every commit of its write path skipped: the checkpoint's events,
 * claims and results and the loop's batches go through the store (texts made, queue, claims
 * looked up, the lookahead's reads) as in any run, and the transactions that would write them
 * do nothing, with all they do inside (the fold into `calls` rows, the link rows and their
 * hashes, the file check after a commit). With `events: "one-a-read"`, every call's `requested`
 * and `decided` and a `started` that does not write never reach the store, so a read call hands
 * it one event besides its claim and result: a model of a store of one record a read call, not
 * a bound on one. Not a docket configuration: a bound for the bench (`DOCKET_BENCH_LOOP=ceiling`,
 * `npm run bench store`, ADR 0099) on what today's store code costs a call before it writes.
 * The store is changed in place and returned; the session's start and end are still written.
 *
 * @example
 * ```ts
 * import { openStore } from "../src/store/open-store.js";
 * const store = unwrittenStore(await openStore("sqlite:/tmp/bench.db"));
 * const { id } = await store.createSession({ principal: "p", configHash: "" }); // written
 * await store.emit({ type: "requested", at: 0, sessionId: id, callId: "c1", tool: "noop",
 *   principal: "p", rawArguments: "{}", rawBytes: 2 }); // queued, its commit skipped
 * ```
 */
export function unwrittenStore(
  store: Store,
  { events = "all" }: { events?: UnwrittenEvents } = {},
): Store {
  // The engine behind docket's own stores (`EngineStore`'s `db`): not part of the Store interface.
  const engine = (store as unknown as { db?: Partial<WritePathEngine> }).db;
  if (!engine || typeof engine.appendEvents !== "function") {
    throw new Error("unwrittenStore takes a store that openStore made (an engine store).");
  }
  const skipped: Partial<WritePathEngine> = {
    appendEvents: () => undefined,
    ...(engine.appendAndSign ? { appendAndSign: () => [] } : {}),
    ...(engine.claimAndStart
      ? {
          claimAndStart: (_items, _claim, intent): ClaimCommit => ({
            result: { status: "claimed", ...(intent === undefined ? {} : { started: true }) },
            attestations: [],
          }),
        }
      : {}),
  };
  Object.assign(engine, skipped);
  if (events === "one-a-read") {
    const emit = store.emit.bind(store);
    store.emit = (event, options) =>
      isReadStepBeforeItsEnd(event) ? RESOLVED : emit(event, options);
  }
  return store;
}
