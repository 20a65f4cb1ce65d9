import type { CallRow } from "./call-state.js";
import { CallTaken } from "./call-taken.js";
import { callKey, type PendingWrite } from "./pending-write.js";
import { isIntent } from "./store-event.js";

/**
 * What the caller of a failed write refused, and so what is never written again once that write
 * turns out not to have happened: an intent (`started` of a write), or a write's claim
 * (`exclusive`, queued with its intent by `EventQueue.claim`). The caller that queued either was
 * told of the failure and refused the call without running it.
 *
 * @example
 * ```ts
 * declare const batch: readonly import("./pending-write.js").PendingWrite[];
 * const retried = batch.filter((item) => !refusedOnFailure(item));
 * ```
 */
export function refusedOnFailure(item: PendingWrite): boolean {
  if (item.kind === "claim") return item.exclusive === true;
  return item.kind === "event" && isIntent(item.event);
}

/** A write's claim whose id another store took first, out of the batch that carried it. */
export interface TakenClaim {
  /** The call's `callKey`. */
  readonly key: string;
  /** The row that holds the id, as the claim's fold found it. */
  readonly row: CallRow;
  /** The call's claim and intent: not written. */
  readonly dropped: readonly PendingWrite[];
  /** The rest of the batch, to write again. */
  readonly rest: PendingWrite[];
}

/**
 * When a batch's write failed with `CallTaken` for a write's claim it carries (its transaction
 * was undone: nothing of the batch was committed), that claim and its intent, and the rest of the
 * batch; otherwise undefined (the failure is the write's own).
 *
 * @example
 * ```ts
 * declare const batch: import("./pending-write.js").PendingWrite[];
 * declare const error: unknown; // what the engine's append threw
 * const taken = takenClaim(batch, error);
 * if (taken) console.log(`${taken.row.callId} is taken; ${taken.rest.length} items go again`);
 * ```
 */
export function takenClaim(batch: readonly PendingWrite[], error: unknown): TakenClaim | undefined {
  if (!(error instanceof CallTaken)) return undefined;
  const key = callKey(error.row);
  const ofCall = (item: PendingWrite) =>
    item.kind !== "messages" && callKey(item) === key && refusedOnFailure(item);
  if (!batch.some((item) => item.kind === "claim" && ofCall(item))) return undefined;
  return {
    key,
    row: error.row,
    dropped: batch.filter(ofCall),
    rest: batch.filter((item) => !ofCall(item)),
  };
}
