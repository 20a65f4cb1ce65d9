import type { FileMark, FileMarks } from "./file-mark.js";

/**
 * Past this many ids a session's ids are no longer tracked: its batches read the table again,
 * and what is held stays under about 2 MB however long the session runs.
 */
const MAX_KNOWN_IDS = 50_000;

/**
 * Every call id one session has in the `calls` table, known whole, and the mark it is known
 * under (ADR 0090). It starts when the store sees the session without a single row and grows
 * with every row this store saves for it. While the mark holds (no other connection committed,
 * none of this connection's transactions was undone), a batch whose ids are all outside the set
 * has no row to read: the store skips its read-ahead `SELECT`. An id inside the set (a reused
 * id), another session, or a mark that no longer holds: the table is read as before.
 *
 * @example
 * ```ts
 * declare const marks: import("./file-mark.js").FileMarks;
 * const known = new KnownCallIds();
 * known.startEmpty("ses_1", marks.latest()); // the session has no calls row
 * known.saved("ses_1", "call_1");
 * known.allAbsent("ses_1", ["call_2"], marks); // the mark: nothing to read
 * known.allAbsent("ses_1", ["call_1"], marks); // undefined: read the table
 * ```
 */
export class KnownCallIds {
  private known: { mark: FileMark; sessionId: string; ids: Set<string> } | undefined;

  /** The session was seen, under `mark`, with no calls row at all. */
  startEmpty(sessionId: string, mark: FileMark): void {
    this.known = { mark, sessionId, ids: new Set() };
  }

  /** This store saved a row of `sessionId` (inside a write transaction). */
  saved(sessionId: string, callId: string): void {
    const known = this.known;
    if (known?.sessionId !== sessionId) return;
    known.ids.add(callId);
    if (known.ids.size > MAX_KNOWN_IDS) this.known = undefined;
  }

  /**
   * The mark under which none of `callIds` has a row in `sessionId`, or undefined when that is
   * not known and the table must be read. Checks the mark (a statement), so the answer holds
   * now, not only when the set was started.
   */
  allAbsent(sessionId: string, callIds: readonly string[], marks: FileMarks): FileMark | undefined {
    const known = this.known;
    if (known?.sessionId !== sessionId) return undefined;
    for (const callId of callIds) if (known.ids.has(callId)) return undefined;
    if (!marks.unchanged(known.mark)) {
      this.known = undefined;
      return undefined;
    }
    return known.mark;
  }
}
