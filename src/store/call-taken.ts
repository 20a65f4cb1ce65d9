import { DocketError } from "../errors/docket-error.js";
import type { CallRow } from "./call-state.js";

/**
 * A write's claim found its call id already taken inside the commit that was to write its intent
 * (another process claimed it after the store's check). The commit is undone; the store writes
 * what else was queued on its own and answers the claim `seen` from `row`. Never reaches a caller.
 *
 * @example
 * ```ts
 * import type { CallRow } from "./call-state.js";
 * declare const row: CallRow; // the row the claim's fold found
 * const taken = new CallTaken(row);
 * taken.code; // "call_taken"
 * taken.row.state; // e.g. "claimed": answered as `seenClaim(taken.row)`
 * ```
 */
export class CallTaken extends DocketError {
  constructor(readonly row: CallRow) {
    super("call_taken", `The call id ${row.callId} was taken before its claim was committed.`);
  }
}
