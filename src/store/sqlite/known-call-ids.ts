import { storedText } from "../pending-event.js";
import type { FileMark, FileMarks } from "./file-mark.js";

/** Sessions whose ids are tracked at once: a store serving a few sessions in turn keeps each. */
const MAX_SESSIONS = 8;
/**
 * Past this many ids in all, the session being grown is no longer tracked: its batches read the
 * table again, and what is held stays under about 2 MB however long the sessions run.
 */
const MAX_KNOWN_IDS = 50_000;
/** Sessions remembered as having calls rows (a lookup saved each); forgotten all at once when full. */
const MAX_SESSIONS_WITH_CALLS = 4_096;

/**
 * The call ids some sessions have in the `calls` table, each set known whole, with the mark it is
 * known under (ADR 0090). A set starts when the store sees its session without a single row and
 * grows with every row this store saves for it. While its mark holds (no other connection
 * committed, none of this connection's transactions was undone), a batch whose ids are all outside
 * the set has no row to read: the store skips its read-ahead `SELECT`. An id inside the set (a
 * reused id), an id that is not a string, a session without a set, or a mark that no longer holds:
 * the table is read as before. Ids are compared as stored (`storedText`): two texts SQLite keeps
 * as one are one id here too, so the set can only err towards reading the table.
 *
 * It also remembers the sessions seen with rows (a session's number is never taken back), so a
 * resumed session's batches do not ask again whether it has any.
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
  private readonly sessions = new Map<string, { mark: FileMark; ids: Set<string> }>();
  private readonly withCalls = new Set<string>();
  private total = 0;

  /** The session was seen, under `mark`, with no calls row at all. */
  startEmpty(sessionId: string, mark: FileMark): void {
    if (typeof sessionId !== "string") return;
    sessionId = storedText(sessionId);
    this.forget(sessionId);
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.forget(oldest);
    }
    this.sessions.set(sessionId, { mark, ids: new Set() });
  }

  /**
   * True when the session was seen with rows, or saved some: asking whether it has none is
   * pointless. Only ever too eager to say so (a number given by a transaction that was undone),
   * which sends its batches to the table.
   */
  hasCalls(sessionId: string): boolean {
    return typeof sessionId === "string" && this.withCalls.has(storedText(sessionId));
  }

  /** The session has (or may have) calls rows. */
  noteCalls(sessionId: string): void {
    if (typeof sessionId === "string") this.rememberCalls(storedText(sessionId));
  }

  /** This store saved a row of `sessionId` (inside a write transaction). */
  saved(sessionId: string, callId: string): void {
    // A set compares values, SQLite stored text: a row under an id that is not a string may be
    // any session's and any call's, as SQLite converts it. Nothing known stands after it.
    if (typeof sessionId !== "string" || typeof callId !== "string") {
      this.sessions.clear();
      this.total = 0;
      return;
    }
    const session = storedText(sessionId);
    this.rememberCalls(session);
    const known = this.sessions.get(session);
    if (known === undefined) return;
    if (this.total >= MAX_KNOWN_IDS) {
      this.forget(session);
      return;
    }
    const id = storedText(callId);
    if (known.ids.has(id)) return;
    known.ids.add(id);
    this.total += 1;
  }

  /**
   * The mark under which none of `callIds` has a row in `sessionId`, or undefined when that is
   * not known and the table must be read. Checks the mark (a statement), so the answer holds
   * now, not only when the set was started.
   */
  allAbsent(sessionId: string, callIds: readonly string[], marks: FileMarks): FileMark | undefined {
    if (typeof sessionId !== "string") return undefined;
    const session = storedText(sessionId);
    const known = this.sessions.get(session);
    if (known === undefined) return undefined;
    for (const callId of callIds) {
      if (typeof callId !== "string" || known.ids.has(storedText(callId))) return undefined;
    }
    if (!marks.unchanged(known.mark)) {
      this.forget(session);
      return undefined;
    }
    return known.mark;
  }

  /** `session` as stored: remembered as having calls rows (a row saved, most often, again). */
  private rememberCalls(session: string): void {
    if (this.withCalls.has(session)) return;
    if (this.withCalls.size >= MAX_SESSIONS_WITH_CALLS) this.withCalls.clear();
    this.withCalls.add(session);
  }

  private forget(sessionId: string): void {
    const known = this.sessions.get(sessionId);
    if (known === undefined) return;
    this.total -= known.ids.size;
    this.sessions.delete(sessionId);
  }
}
