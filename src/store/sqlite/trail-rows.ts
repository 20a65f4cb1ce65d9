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
 * Lays a write's chained events out as `audit_events` rows and links them into their session's
 * chain: one row and one link per event, except that the consecutive events of one read call
 * (a `started` that does not write, and no intent) are one row and one link (ADR 0077). Such a
 * row holds their canonical JSON texts as `joinedLinkText` joins them, its `seq`, `type` and
 * `at` are its last event's, and its hash is `linkHash(seq, sessionId, prevHash, text)`: one
 * SHA-256 for the call instead of one per event. Each event keeps its own seq, so `audit show`
 * and the listings read every event as before. A row costs SQLite about as much as the bytes it
 * adds to the write-ahead log; four rows of a read call cost about twice one row.
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
  private run: Placed[] = [];
  private runHead: MovingHead | undefined;

  constructor(private readonly insert: MultiRowInsert) {}

  /**
   * The next event of the chain (of any session), at `seq`; `head` is its session's head,
   * whose hash moves on when the event's link is laid out (at the latest at `end`).
   */
  add(item: PendingEvent, seq: number, head: MovingHead): void {
    const last = this.run[this.run.length - 1];
    if (
      last &&
      (last.item.sessionId !== item.sessionId ||
        last.item.callId !== item.callId ||
        last.item.tool !== item.tool)
    ) {
      this.end();
    }
    this.runHead = head;
    this.run.push({ item, seq });
  }

  /** Write out the run in hand (call before flushing the insert, and before reading a head). */
  end(): void {
    const run = this.run;
    const head = this.runHead;
    if (run.length === 0 || head === undefined) return;
    this.run = [];
    const { sessionId } = (run[0] as Placed).item;
    if (run.length === 1 || !isRead(run)) {
      for (const { item, seq } of run) {
        const prevHash = head.hash;
        head.hash = linkHash(seq, sessionId, prevHash, item.json);
        this.row(item, seq, item.json, prevHash, head.hash);
      }
      return;
    }
    const last = run[run.length - 1] as Placed;
    const text = joinedLinkText(run.map(({ item }) => item.json));
    const prevHash = head.hash;
    head.hash = linkHash(last.seq, sessionId, prevHash, text);
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
