import { isOwnerGone } from "./call-owner.js";
import type { CallRecord } from "./call-record.js";
import { isReadInFlight } from "./call-state.js";
import type { StoreEngine } from "./store-engine.js";
import type { InterruptedEvent, StoreEvent } from "./store-event.js";

/**
 * Split the open calls (claimed or started) that recovery may close: started writes become
 * `interrupted` (when their owner is gone, or with `all`), and so do reads that started and
 * whose owner is gone; claims that never started are
 * released so the call may be claimed again (it never ran), only when their owner is gone.
 * Never this instance's own calls.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * declare const openCalls: readonly import("./call-record.js").CallRecord[]; // started, no outcome
 * const { interrupt, release } = recoverable(openCalls, store.owner, false);
 * ```
 */
export function recoverable(
  open: readonly CallRecord[],
  self: string,
  all: boolean,
): { interrupt: CallRecord[]; release: CallRecord[] } {
  const interrupt: CallRecord[] = [];
  const release: CallRecord[] = [];
  for (const call of open) {
    if (call.owner === self) continue;
    const gone = isOwnerGone(call.owner);
    // A read cut short is closed like a write (it never gets a closing event otherwise), but
    // only when its owner is surely gone: a live owner's read is simply still running.
    if (call.state === "started" && (all || gone)) interrupt.push(call);
    else if (isReadInFlight(call) && gone) interrupt.push(call);
    // A claim is released only when its owner is surely gone, even with `all`: releasing a live
    // owner's claim would let the call run twice.
    else if (call.state === "claimed" && gone) release.push(call);
  }
  return { interrupt, release };
}

/**
 * The event that closes a started write whose process ended.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * declare const calls: readonly import("./call-record.js").CallRecord[];
 * await store.emitMany(calls.map((call) => interruptedEvent(call, Date.now())));
 * ```
 */
export function interruptedEvent(call: CallRecord, at: number): InterruptedEvent {
  return {
    type: "interrupted",
    callId: call.callId,
    tool: call.tool,
    sessionId: call.sessionId,
    at,
    reason: "interrupted",
    message: call.writes
      ? `${call.tool} started but its process ended before it finished; whether it changed anything is unknown. It was not run again.`
      : `${call.tool} (a read) started but its process ended before it finished; it has no result. It was not run again.`,
    startedAt: call.startedAt,
    owner: call.owner,
  };
}

/**
 * Close every started write whose process is gone with an `interrupted` event, release stale
 * claims that never started, and return the calls this process interrupted (another process
 * may have closed one first: it finished, or it recovered it).
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * declare const store: import("./store.js").Store;
 * const owner = store.owner;
 * await interruptOpenCalls(engine, (events) => store.emitMany(events), { owner, at: Date.now(), all: false });
 * ```
 */
export async function interruptOpenCalls(
  db: Pick<StoreEngine, "openCalls" | "releaseClaim" | "listCalls">,
  emitMany: (events: readonly StoreEvent[]) => Promise<void>,
  {
    owner,
    at,
    sessionId,
    all,
  }: { owner: string; at: number; sessionId?: string | undefined; all: boolean },
): Promise<CallRecord[]> {
  const open = await db.openCalls(sessionId);
  const { interrupt, release } = recoverable(open, owner, all);
  for (const call of release) await db.releaseClaim(call);
  if (interrupt.length === 0) return [];
  await emitMany(interrupt.map((call) => interruptedEvent(call, at)));
  const marked: CallRecord[] = [];
  for (const call of interrupt) {
    const [row] = await db.listCalls({ sessionId: call.sessionId, callId: call.callId, limit: 1 });
    if (row?.state === "interrupted" && row.finishedAt === at) marked.push(row);
  }
  return marked;
}
