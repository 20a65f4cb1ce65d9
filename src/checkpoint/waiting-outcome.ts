import type { CallLedger } from "./call-ledger.js";

/**
 * The last write outcome a checkpoint left for the next commit (ADR 0081). The next write's claim
 * commits it before that write runs; a read's handler has no commit before it, so the outcome is
 * committed first: no handler runs while an earlier write's outcome waits, and another process
 * looking for that write's success (a dedupe key) finds it.
 *
 * @example
 * ```ts
 * declare const ledger: import("./call-ledger.js").CallLedger;
 * const waiting = new WaitingOutcome();
 * waiting.note("ses_1", "call_7"); // a write's outcome was queued
 * await waiting.settle(ledger); // before a read's handler: committed, if it still waits
 * ```
 */
export class WaitingOutcome {
  private last: { readonly sessionId: string | undefined; readonly callId: string } | undefined;

  /** A write's outcome was queued, not committed. */
  note(sessionId: string | undefined, callId: string): void {
    this.last = { sessionId, callId };
  }

  /**
   * Commit the outcome that waits, if it still does (a later claim or the queue's own flush may
   * have taken it). A store that fails here is not a reason to keep a read from running: the
   * batch's flush fails too, and the write is then answered as run but not kept.
   */
  async settle(ledger: CallLedger | undefined): Promise<void> {
    const last = this.last;
    if (last === undefined || ledger === undefined) return;
    this.last = undefined;
    if (ledger.awaitsCommit?.(last.sessionId, last.callId) !== true) return;
    await (ledger.commitQueued ? ledger.commitQueued() : ledger.flush()).catch(() => undefined);
  }
}
