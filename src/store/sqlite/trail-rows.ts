import type { PendingEvent } from "../pending-event.js";
import type { MultiRowInsert } from "./multi-row-insert.js";

/** One chained event on its way to a row. */
interface Link {
  readonly item: PendingEvent;
  readonly seq: number;
  readonly prevHash: string;
  readonly hash: string;
}

/**
 * Lays a write's chained events out as `audit_events` rows: one row per event, except that the
 * consecutive events of one read call (a `started` that does not write, and no intent) share a
 * row. Such a row holds their canonical JSON texts joined by newlines (canonical JSON never
 * contains a raw newline), its `seq`, `type` and `at` are its last event's, its `prev_hash` is
 * the first event's and its `hash` the last event's: every event is still a link of the chain
 * (`hash = SHA-256(seq, sessionId, prevHash, event)`), only the hashes inside a row are not
 * stored, since each follows from the one before. A row costs SQLite about as much as the
 * bytes it adds to the write-ahead log; four rows of a read call cost about twice one row.
 *
 * @example
 * ```ts
 * declare const insert: import("./multi-row-insert.js").MultiRowInsert;
 * declare const item: import("../pending-event.js").PendingEvent;
 * declare const [seq, prevHash, hash]: [number, string, string]; // its place in the chain
 * const rows = new TrailRows(insert);
 * rows.add(item, seq, prevHash, hash); // for each event, in chain order
 * rows.end();
 * insert.flush();
 * ```
 */
export class TrailRows {
  private run: Link[] = [];

  constructor(private readonly insert: MultiRowInsert) {}

  /** The next event of the chain (of any session). */
  add(item: PendingEvent, seq: number, prevHash: string, hash: string): void {
    const last = this.run[this.run.length - 1];
    if (
      last &&
      (last.item.sessionId !== item.sessionId ||
        last.item.callId !== item.callId ||
        last.item.tool !== item.tool)
    ) {
      this.end();
    }
    this.run.push({ item, seq, prevHash, hash });
  }

  /** Write out the run in hand (call before flushing the insert). */
  end(): void {
    const run = this.run;
    if (run.length === 0) return;
    this.run = [];
    if (run.length === 1 || !isRead(run)) {
      for (const link of run) this.row(link, link.item.json, link.prevHash);
      return;
    }
    let text = (run[0] as Link).item.json;
    for (let i = 1; i < run.length; i += 1) text += `\n${(run[i] as Link).item.json}`;
    this.row(run[run.length - 1] as Link, text, (run[0] as Link).prevHash);
  }

  private row(last: Link, text: string, prevHash: string): void {
    const { item } = last;
    this.insert
      .nextRow()
      .push(
        item.sessionId,
        last.seq,
        item.callId,
        item.event.type,
        item.tool,
        item.event.at,
        text,
        prevHash,
        last.hash,
      );
  }
}

/** A read call's events: one `started` that does not write, and no intent among them. */
function isRead(run: readonly Link[]): boolean {
  let read = false;
  for (const { item } of run) {
    if (item.event.type !== "started") continue;
    if (item.event.writes !== false) return false;
    read = true;
  }
  return read;
}
