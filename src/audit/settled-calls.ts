import { parseJson } from "../shared/parse-json.js";
import type { CallRow } from "../store/call-state.js";
import type { Database, Statement } from "../store/sqlite/sqlite-driver.js";

/** What verify keeps of a closed call's fold: what its calls row is compared on. */
export type SettledCall = Pick<
  CallRow,
  "tool" | "decision" | "rule" | "status" | "reason" | "state"
> & {
  /** The seq of the call's first event (where a problem with it is reported). */
  readonly firstSeq: number;
};

/** Settled calls held in memory before they move to disk. */
const IN_MEMORY = 20_000;

/** Opens SQLite's private temporary database (`openNodeSqlite("")`), for the spill. */
export type OpenSpill = () => Database;

/**
 * The calls of a session whose fold no longer moves, kept until the calls table is read: in
 * memory up to 20,000, then in a private temporary SQLite file that `openSpill` opens (SQLite
 * deletes it when it is closed, or at once on Unix, so nothing is left after a crash), with a
 * 2 MB page cache. Verify's memory stays flat at a million events and more (issue 33.7): what
 * grows goes to disk. Without `openSpill`, everything stays in memory. The opener is given, not
 * imported: the SQLite driver is loaded only by the store's engine folder, on demand.
 *
 * The first fold kept for a call id wins: a later event of a settled call (a repeated call id,
 * refused as a duplicate) changes nothing the calls row says.
 *
 * @example
 * ```ts
 * declare const openSpill: OpenSpill; // opens a private temporary SQLite file
 * const settled = new SettledCalls(openSpill);
 * settled.add("c1", { tool: "t", decision: "allow", rule: "r", status: "ok", reason: undefined, state: "finished", firstSeq: 1 });
 * settled.take("c1")?.status; // "ok"
 * settled.close();
 * ```
 */
export class SettledCalls {
  private readonly memory = new Map<string, SettledCall>();
  private disk: SpillFile | undefined;

  constructor(private readonly openSpill?: OpenSpill) {}

  /** Keep `call` for `callId` unless a fold of that id is kept already. */
  add(callId: string, call: SettledCall): void {
    if (this.disk) {
      if (!this.memory.has(callId)) this.disk.add(callId, call);
      return;
    }
    if (this.memory.has(callId)) return;
    this.memory.set(callId, call);
    if (this.memory.size > IN_MEMORY && this.openSpill) this.disk = new SpillFile(this.openSpill());
  }

  /** The fold kept for `callId`, forgotten as it is returned. */
  take(callId: string): SettledCall | undefined {
    const held = this.memory.get(callId);
    if (held) {
      this.memory.delete(callId);
      return held;
    }
    return this.disk?.take(callId);
  }

  /** Up to `limit` calls never taken, in the order they settled (memory first). */
  *left(limit: number): Generator<[string, SettledCall]> {
    let given = 0;
    for (const entry of this.memory) {
      if (given >= limit) return;
      given += 1;
      yield entry;
    }
    if (this.disk) yield* this.disk.left(limit - given);
  }

  close(): void {
    this.memory.clear();
    this.disk?.close();
    this.disk = undefined;
  }
}

/** The temporary SQLite file behind `SettledCalls`, one open transaction until it is closed. */
class SpillFile {
  private readonly insert: Statement;
  private readonly remove: Statement;

  constructor(private readonly db: Database) {
    this.db.exec(
      "PRAGMA cache_size = -2000; PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;" +
        "CREATE TABLE settled (call_id TEXT PRIMARY KEY, fold TEXT NOT NULL) WITHOUT ROWID; BEGIN",
    );
    this.insert = this.db.prepare("INSERT OR IGNORE INTO settled (call_id, fold) VALUES (?, ?)");
    this.remove = this.db.prepare("DELETE FROM settled WHERE call_id = ? RETURNING fold");
  }

  add(callId: string, call: SettledCall): void {
    this.insert.run(callId, JSON.stringify(call));
  }

  take(callId: string): SettledCall | undefined {
    const row = this.remove.get(callId) as { fold: string } | undefined;
    return row ? (parseJson(row.fold) as SettledCall) : undefined;
  }

  *left(limit: number): Generator<[string, SettledCall]> {
    if (limit <= 0) return;
    const rows = this.db.prepare("SELECT call_id, fold FROM settled LIMIT ?").all(limit) as {
      call_id: string;
      fold: string;
    }[];
    for (const row of rows) yield [row.call_id, parseJson(row.fold) as SettledCall];
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
