import type { CallLookahead } from "./call-lookahead.js";
import { EventQueue } from "./event-queue.js";
import { settlesCall } from "./pending-write.js";
import type { StoreEngine } from "./store-engine.js";
import type { StoreSigning } from "./store-signing.js";

/**
 * The event queue of a store: appends through signing when the store signs, tells a PostgreSQL
 * commit in doubt from the engine's commit keys, and indexes the items that settle a call (its
 * claim, its result, its closing event), whose rows read ahead it makes stale.
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * declare const lookahead: import("./call-lookahead.js").CallLookahead;
 * const queue = storeEventQueue(engine, undefined, true, lookahead);
 * ```
 */
export function storeEventQueue(
  db: StoreEngine,
  signing: StoreSigning | undefined,
  buffer: boolean,
  lookahead: CallLookahead,
): EventQueue {
  return new EventQueue(signing ? signing.write() : (items, key) => db.appendEvents(items, key), {
    buffer,
    ...(db.committed
      ? { committed: (key: number) => db.committed?.(key) ?? Promise.resolve(false) }
      : {}),
    indexed: settlesCall,
    // What was read ahead of such a call is stale once its row is being written.
    onIndexed: (item) => lookahead.forget(item.sessionId, item.callId),
  });
}
