import type { PendingCallWrite, PendingWrite } from "./pending-write.js";

/**
 * The event queue's index of the items it holds (queued or being written) that a caller asks
 * about by call: how many each call has, by session and call id. Which items count is the
 * queue's choice (`indexed`); `onIndexed` is told of each as it joins.
 *
 * @example
 * ```ts
 * import { settlesCall } from "./pending-write.js";
 * declare const claim: import("./pending-write.js").PendingClaim;
 * const index = new QueuedCalls(settlesCall, undefined);
 * index.add(claim);
 * index.holds(claim.sessionId, claim.callId); // true
 * index.written([claim]);
 * ```
 */
export class QueuedCalls {
  private readonly calls = new Map<string, Map<string, number>>();

  constructor(
    private readonly indexed: ((item: PendingWrite) => item is PendingCallWrite) | undefined,
    private readonly onIndexed: ((item: PendingCallWrite) => void) | undefined,
  ) {}

  /** An item joined the queue. */
  add(item: PendingWrite): void {
    if (!this.indexed?.(item)) return;
    let counts = this.calls.get(item.sessionId);
    if (!counts) {
      counts = new Map();
      this.calls.set(item.sessionId, counts);
    }
    counts.set(item.callId, (counts.get(item.callId) ?? 0) + 1);
    this.onIndexed?.(item);
  }

  /** Items written, or dropped from the queue: out of the index. */
  written(batch: readonly PendingWrite[]): void {
    if (this.calls.size === 0) return;
    for (const item of batch) {
      if (!this.indexed?.(item)) continue;
      const counts = this.calls.get(item.sessionId);
      const count = (counts?.get(item.callId) ?? 0) - 1;
      if (count > 0) counts?.set(item.callId, count);
      else {
        counts?.delete(item.callId);
        if (counts?.size === 0) this.calls.delete(item.sessionId);
      }
    }
  }

  /** True when an indexed item of this call is queued or being written. */
  holds(sessionId: string, callId: string): boolean {
    return this.calls.get(sessionId)?.has(callId) ?? false;
  }
}
