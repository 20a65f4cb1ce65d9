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
 * The text a joined link holds at most before the next call's events start a link of their own:
 * a turn of calls stays one row, a turn of huge results does not become one huge row.
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
 * chain. A run (one call's consecutive events in one write) is one row and one link; the
 * consecutive runs of one session whose calls are this writer's own for good (their rows' owner,
 * settled: `hasSettledOwner`) join into one row and one link, reads and writes alike (ADRs 0077,
 * 0086, 0101): a turn's read calls, or a write's `requested`, `decided` and intent with the
 * previous write's outcome that rides in its claim's commit. Any other run (no owner, another
 * process's, or an owner that may still change) is a link of its own, so that a joined row's calls
 * all have its last call's owner, now and later. A row of several events holds their canonical
 * JSON texts as `joinedLinkText` joins them, its `seq`, `call_id`, `type`, `tool` and `at` are its
 * last event's, and its hash is `linkHash(seq, sessionId, prevHash, text)`: one SHA-256 for the
 * link instead of one per event. Each event keeps its own seq, call id and tool in its text, so
 * `audit show` and the listings read every event as before. A row costs SQLite about as much as
 * the bytes it adds to the write-ahead log, and ten rows of a turn's reads about one and a half
 * times their one row.
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
  /** Whether the call in hand is this writer's own for good (its row's owner, settled). */
  private runOwned = true;
  /** Runs laid out so far that share one link, and the length of their texts. */
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
   * says that the call's row is this writer's for good (`hasSettledOwner`): only such calls
   * share a link with others.
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

  /** The call in hand ends: this writer's joins the link in hand, another's is a link alone. */
  private endCall(): void {
    const run = this.run;
    const head = this.runHead;
    if (run.length === 0 || head === undefined) return;
    this.run = [];
    let chars = 0;
    for (const { item } of run) chars += item.json.length + 2;
    if (
      !this.runOwned ||
      this.joinedHead !== head ||
      (this.joined.length > 0 && this.joinedChars + chars > this.maxJoinedChars)
    ) {
      this.endJoined();
    }
    this.joinedHead = head;
    this.joinedChars += chars;
    for (const placed of run) this.joined.push(placed);
    // Not this writer's call: a link of its own events, between the others (ADR 0086).
    if (!this.runOwned) this.endJoined();
  }

  /** The runs in hand become one row and one link. */
  private endJoined(): void {
    const joined = this.joined;
    const head = this.joinedHead;
    if (joined.length === 0 || head === undefined) return;
    this.joined = [];
    this.joinedHead = undefined;
    this.joinedChars = 0;
    const last = joined[joined.length - 1] as Placed;
    // One event is stored as its own text, as it always was: only several are an array.
    const text =
      joined.length === 1 ? last.item.json : joinedLinkText(joined.map(({ item }) => item.json));
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
