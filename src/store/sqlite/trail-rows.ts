import { linkHash } from "../audit-chain.js";
import { joinedLinkText } from "../joined-link.js";
import type { PendingEvent } from "../pending-event.js";
import type { MultiRowInsert } from "./multi-row-insert.js";

/** A session's chain head as a write moves it on: the rows laid out here advance it in place. */
export interface MovingHead {
  seq: number;
  hash: string;
}

/** One event on its way to a row, with its seq in the chain. */
interface Placed {
  readonly item: PendingEvent;
  readonly seq: number;
}

/**
 * The text a joined link holds at most before the next read call starts a link of its own: a
 * turn of read calls stays one row, a turn of huge results does not become one huge row.
 *
 * @example
 * ```ts
 * declare const insert: import("./multi-row-insert.js").MultiRowInsert;
 * new TrailRows(insert, MAX_JOINED_LINK_CHARS); // the default
 * ```
 */
export const MAX_JOINED_LINK_CHARS = 64 * 1024;

/**
 * Lays a write's chained events out as `audit_events` rows and links them into their session's
 * chain: one row and one link per event, except that the consecutive read calls of one session
 * in one write (each a run of its events with a `started` that does not write, and no intent)
 * are one row and one link together (ADRs 0077, 0086); a read call whose row another process
 * owns is one link of its own, so that a joined row's calls all have its last call's owner.
 * Such a row holds their canonical JSON texts as `joinedLinkText` joins them, its `seq`,
 * `call_id`, `type`, `tool` and `at` are its last event's, and its hash is
 * `linkHash(seq, sessionId, prevHash, text)`: one SHA-256 for a turn's read calls instead of one
 * per call. Each event keeps its own seq, call id and tool in
 * its text, so `audit show` and the listings read every event as before. A row costs SQLite
 * about as much as the bytes it adds to the write-ahead log, and ten rows of a turn's reads
 * about one and a half times their one row.
 *
 * @example
 * ```ts
 * declare const insert: import("./multi-row-insert.js").MultiRowInsert;
 * declare const item: import("../pending-event.js").PendingEvent;
 * const head = { seq: 0, hash: "0".repeat(64) }; // the session's chain head
 * const rows = new TrailRows(insert);
 * head.seq += 1;
 * rows.add(item, head.seq, head); // for each event, in chain order
 * rows.end(); // head.hash is now the last link's
 * insert.flush();
 * ```
 */
export class TrailRows {
  /** The events of the call in hand. */
  private run: Placed[] = [];
  private runHead: MovingHead | undefined;
  /** Whether the call in hand is this writer's own (its row's owner), as of its last event. */
  private runOwned = true;
  /** Read calls laid out so far that share one link, and the length of their texts. */
  private joined: Placed[] = [];
  private joinedHead: MovingHead | undefined;
  private joinedChars = 0;

  constructor(
    private readonly insert: MultiRowInsert,
    private readonly maxJoinedChars = MAX_JOINED_LINK_CHARS,
  ) {}

  /**
   * The next event of the chain (of any session), at `seq`; `head` is its session's head,
   * whose hash moves on when the event's link is laid out (at the latest at `end`). `owned`
   * says that the call's row is this writer's: only such read calls share a link with others.
   */
  add(item: PendingEvent, seq: number, head: MovingHead, owned = true): void {
    const last = this.run[this.run.length - 1];
    if (
      last &&
      (last.item.sessionId !== item.sessionId ||
        last.item.callId !== item.callId ||
        last.item.tool !== item.tool)
    ) {
      this.endCall();
    }
    this.runHead = head;
    this.runOwned = owned;
    this.run.push({ item, seq });
  }

  /** Write out everything in hand (call before flushing the insert, and before reading a head). */
  end(): void {
    this.endCall();
    this.endJoined();
  }

  /** The call in hand ends: a read joins the link in hand, anything else is a link an event. */
  private endCall(): void {
    const run = this.run;
    const head = this.runHead;
    if (run.length === 0 || head === undefined) return;
    this.run = [];
    if (run.length > 1 && isRead(run)) {
      if (!this.runOwned) {
        // Another process's call: one link of its own events (ADR 0077), between the others.
        this.endJoined();
        this.joined = run;
        this.joinedHead = head;
        this.endJoined();
        return;
      }
      let chars = 0;
      for (const { item } of run) chars += item.json.length + 2;
      if (
        this.joinedHead !== head ||
        (this.joined.length > 0 && this.joinedChars + chars > this.maxJoinedChars)
      ) {
        this.endJoined();
      }
      this.joinedHead = head;
      this.joinedChars += chars;
      for (const placed of run) this.joined.push(placed);
      return;
    }
    this.endJoined();
    const { sessionId } = (run[0] as Placed).item;
    for (const { item, seq } of run) {
      const prevHash = head.hash;
      head.hash = linkHash(seq, sessionId, prevHash, item.json);
      this.row(item, seq, item.json, prevHash, head.hash);
    }
  }

  /** The read calls in hand become one row and one link. */
  private endJoined(): void {
    const joined = this.joined;
    const head = this.joinedHead;
    if (joined.length === 0 || head === undefined) return;
    this.joined = [];
    this.joinedHead = undefined;
    this.joinedChars = 0;
    const last = joined[joined.length - 1] as Placed;
    const text = joinedLinkText(joined.map(({ item }) => item.json));
    const prevHash = head.hash;
    head.hash = linkHash(last.seq, last.item.sessionId, prevHash, text);
    this.row(last.item, last.seq, text, prevHash, head.hash);
  }

  private row(item: PendingEvent, seq: number, text: string, prevHash: string, hash: string) {
    this.insert
      .nextRow()
      .push(
        item.sessionId,
        seq,
        item.callId,
        item.event.type,
        item.tool,
        item.event.at,
        text,
        prevHash,
        hash,
      );
  }
}

/** A read call's events: one `started` that does not write, and no intent among them. */
function isRead(run: readonly Placed[]): boolean {
  let read = false;
  for (const { item } of run) {
    if (item.event.type !== "started") continue;
    if (item.event.writes !== false) return false;
    read = true;
  }
  return read;
}
