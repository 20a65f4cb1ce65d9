import type { CallRow } from "./call-state.js";
import type { StoreEngine } from "./store-engine.js";

/**
 * The `calls` rows a batch's deferred claims check, read for the whole batch at once: an
 * autocommit read costs its locking (about 6 µs on SQLite here) whatever it returns. Each row
 * read ahead is used once; a new batch replaces what is left. A row this store writes after
 * the read (a refused call's record, a write's claim) makes what was read of it stale: the
 * store forgets that id when it queues such a write and everything when it commits for a
 * reader, so a reused id in a later batch is answered from its record, never from an old
 * "absent".
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * const lookahead = new CallLookahead(engine);
 * await lookahead.prefetch("ses_1", ["call_1", "call_2"]);
 * await lookahead.row("ses_1", "call_1"); // from the prefetch, no read
 * ```
 */
export class CallLookahead {
  /** The session read ahead, and its rows by call id (null: read, not recorded). */
  private sessionId: string | undefined;
  private rows = new Map<string, CallRow | null>();

  constructor(private readonly db: Pick<StoreEngine, "loadCall" | "loadCalls">) {}

  /** Read the rows of these ids (stored form) now. */
  async prefetch(sessionId: string, callIds: readonly string[]): Promise<void> {
    // A read that fails leaves nothing of an earlier batch behind.
    this.clear();
    const found = await this.db.loadCalls(sessionId, callIds);
    // Keyed by call id within the one session a batch has: no key string built per call.
    const rows = new Map<string, CallRow | null>();
    for (const callId of callIds) rows.set(callId, null);
    for (const row of found) rows.set(row.callId, row);
    this.sessionId = sessionId;
    this.rows = rows;
  }

  /** Drop what was read of one id: this store is writing its row. */
  forget(sessionId: string, callId: string): void {
    if (sessionId === this.sessionId) this.rows.delete(callId);
  }

  /** Drop everything read ahead. */
  clear(): void {
    this.sessionId = undefined;
    if (this.rows.size > 0) this.rows = new Map();
  }

  /**
   * What the batch read ahead of one id, without a read: its row, `null` for an id the table
   * did not hold, `undefined` when it was not read ahead.
   */
  known(sessionId: string, callId: string): CallRow | null | undefined {
    return sessionId === this.sessionId ? this.rows.get(callId) : undefined;
  }

  /**
   * The row of one id without using it up: the claim that follows still finds what was read
   * ahead. Read now (and not kept) when it was not read ahead.
   */
  async peek(sessionId: string, callId: string): Promise<CallRow | undefined> {
    const known = sessionId === this.sessionId ? this.rows.get(callId) : undefined;
    if (known === undefined) return this.db.loadCall(sessionId, callId);
    return known ?? undefined;
  }

  /** The row of one id: read ahead if it was, else read now. */
  async row(sessionId: string, callId: string): Promise<CallRow | undefined> {
    const known = sessionId === this.sessionId ? this.rows.get(callId) : undefined;
    if (known === undefined) return this.db.loadCall(sessionId, callId);
    this.rows.delete(callId);
    return known ?? undefined;
  }
}
