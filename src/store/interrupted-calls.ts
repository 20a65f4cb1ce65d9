import { isOwnerGone } from "./call-owner.js";
import type { CallRecord } from "./call-record.js";
import type { InterruptedEvent } from "./store-event.js";

/**
 * Split the open calls (claimed or started) that recovery may close: started writes become
 * `interrupted` (when their owner is gone, or with `all`); claims that never started are
 * released so the call may be claimed again (it never ran), only when their owner is gone.
 * Never this instance's own calls.
 *
 * @example
 * ```ts
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
    if (call.state === "started" && (all || gone)) interrupt.push(call);
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
    message: `${call.tool} started but its process ended before it finished; whether it changed anything is unknown. It was not run again.`,
    startedAt: call.startedAt,
    owner: call.owner,
  };
}
