import { type ChainHead, ChainVerifier, GENESIS_HASH } from "../audit-chain.js";
import type { AuditRecord, ChainVerification, EventFilter } from "../audit-record.js";
import type { CallRow } from "../call-state.js";
import { isLabelledResult } from "../labelled-result.js";
import { foldCallWrite, type PendingCallWrite } from "../pending-write.js";
import { hasSettledOwner } from "../settled-owner.js";
import { eventFilterSql, listLimit } from "../store-input.js";
import type { Row } from "../store-rows.js";
import { type FileMark, FileMarks } from "./file-mark.js";
import { MultiRowInsert } from "./multi-row-insert.js";
import type { CallEntry, SqliteCalls } from "./sqlite-calls.js";
import type { Database, Statement } from "./sqlite-driver.js";
import { statementCache } from "./statement-cache.js";
import { TrailRows } from "./trail-rows.js";
import { auditRecordOf, type LinkColumns, unpackTrailRow } from "./unpack-trail-row.js";

/**
 * The audit trail of a SQLite store: appends to the per-session hash chains, lists and verifies
 * them. Appends run inside the engine's `BEGIN IMMEDIATE` transaction: the write lock is taken
 * before the chain head is read, so two processes on one file can never fork a chain.
 *
 * @example
 * ```ts
 * import { prepareEvent } from "../pending-event.js";
 * import { SqliteCalls } from "./sqlite-calls.js";
 * declare const db: import("./sqlite-driver.js").Database;
 * declare const event: import("../store-event.js").StoreEvent;
 * const owner = "host/1/uuid";
 * const calls = new SqliteCalls(db, owner, Date.now);
 * const log = new SqliteAuditLog(db, calls, owner);
 * db.transaction(() => log.write([prepareEvent(event, "")])).immediate();
 * log.verify(undefined); // { ok: true, checked: 1, sessions: 1 }
 * ```
 */
export class SqliteAuditLog {
  private readonly headStatement: Statement;
  private readonly insertEvents: MultiRowInsert;
  private readonly saveHeadStatement: Statement;
  private readonly sql: (source: string) => Statement;
  /**
   * The head this store last wrote, with the mark it holds under: the session's next append
   * starts from it without reading `chain_heads` while the file is unchanged.
   */
  private lastHead: { sessionId: string; head: ChainHead; mark: FileMark } | undefined;

  constructor(
    private readonly db: Database,
    private readonly calls: SqliteCalls,
    private readonly owner: string,
    private readonly marks: FileMarks = new FileMarks(db),
  ) {
    this.sql = statementCache(db);
    this.headStatement = db.prepare("SELECT seq, hash FROM chain_heads WHERE session_id = ?");
    this.insertEvents = new MultiRowInsert(
      db,
      "INSERT INTO audit_events (session_id, seq, call_id, type, tool, at, event, prev_hash, hash) VALUES",
      9,
    );
    this.saveHeadStatement = db.prepare(
      "INSERT INTO chain_heads (session_id, seq, hash) VALUES (?, ?, ?) ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash",
    );
  }

  /**
   * Append queued items inside the caller's write transaction. The calls they touch are read in
   * one query per session, and the events and call rows are written as multi-row statements:
   * per statement, the driver costs about as much as SQLite's own work for a row.
   */
  write(items: readonly PendingCallWrite[]): void {
    if (items.length === 0) return;
    // Rows a failed write pushed and never flushed are not this write's.
    this.insertEvents.discard();
    const heads = new Map<string, { seq: number; hash: string }>();
    const calls = this.calls.loadFor(items);
    const rows = new TrailRows(this.insertEvents);
    // A call's items, and a session's events, come in runs: their entry and head are looked up
    // once a run, not once an item.
    let entry: CallEntry | undefined;
    let entrySession: string | undefined;
    let entryCall: string | undefined;
    let head: { seq: number; hash: string } | undefined;
    let headSession: string | undefined;
    for (const item of items) {
      const { sessionId, callId } = item;
      if (entry === undefined || callId !== entryCall || sessionId !== entrySession) {
        entry = calls.get(sessionId)?.get(callId) as CallEntry;
        entrySession = sessionId;
        entryCall = callId;
      }
      const next = foldCallWrite(entry.row, item, this.owner);
      if (item.kind === "event") {
        // An interruption that comes too late (the call finished meanwhile) is not recorded.
        if (item.event.type === "interrupted" && next === entry.row) continue;
        if (head === undefined || sessionId !== headSession) {
          head = heads.get(sessionId);
          if (head === undefined) {
            head = { ...this.head(sessionId) };
            heads.set(sessionId, head);
          }
          headSession = sessionId;
        }
        // The map holds this object: the head moves on in place (its hash as the rows link).
        head.seq += 1;
        // A call whose row another process owns (its id already finished there), or whose owner
        // may yet change (still open to a claim or a release), keeps a link of its own: a joined
        // row's calls are all this writer's for good, as the owners of an unsigned tail are read
        // from a row's last call (`SqliteAttestations.unsignedTails`).
        rows.add(
          item,
          head.seq,
          head,
          next !== undefined && next.owner === this.owner && hasSettledOwner(next),
        );
      }
      if (next !== entry.row) {
        entry.row = next;
        entry.changed = true;
      }
    }
    rows.end();
    this.insertEvents.flush();
    for (const [sessionId, head] of heads) {
      this.saveHeadStatement.run(sessionId, head.seq, head.hash);
      // Marked after the write: a rollback of this transaction moves the mark's `undone`.
      this.lastHead = { sessionId, head: { ...head }, mark: this.marks.latest() };
    }
    const inserted: CallRow[] = [];
    const updated: CallRow[] = [];
    for (const session of calls.values()) {
      for (const entry of session.values()) {
        if (entry.changed && entry.row) (entry.stored ? updated : inserted).push(entry.row);
      }
    }
    this.calls.saveMany(inserted, { absent: true });
    this.calls.saveMany(updated);
  }

  private head(sessionId: string): ChainHead {
    const last = this.lastHead;
    if (last?.sessionId === sessionId && this.marks.unchanged(last.mark)) return last.head;
    this.lastHead = undefined;
    const row = this.headStatement.get(sessionId) as Row | undefined;
    return row ? { seq: Number(row.seq), hash: String(row.hash) } : { seq: 0, hash: GENESIS_HASH };
  }

  list(filter: EventFilter): AuditRecord[] {
    const limit = listLimit(filter.limit);
    const { where, params } = eventFilterSql(filter, {
      packedRows: true,
      sessionsOfCall: this.calls.keys.sessionsOfCall,
    });
    const records: AuditRecord[] = [];
    const rows = this.sql(`SELECT * FROM audit_events ${where} ORDER BY session_id, seq`).iterate(
      ...params,
    );
    const wanted = (link: LinkColumns) => matches(link, filter);
    const needles = packedRowNeedles(filter);
    for (const row of rows) {
      const text = String((row as Row).event);
      // A packed row without the call's (or tool's) text holds none of its events: not parsed.
      if (needles.length > 0 && text.includes("\n") && !needles.every((n) => text.includes(n))) {
        continue;
      }
      for (const link of unpackTrailRow(row as Row, wanted)) {
        if (!wanted(link)) continue;
        const record = auditRecordOf(link);
        if (filter.labelled === true && !isLabelledResult(record.event)) continue;
        records.push(record);
        // Leaving the loop closes the statement's iterator.
        if (records.length >= limit) return records;
      }
    }
    return records;
  }

  /** Verify one chain, or all, streaming the rows in (session, seq) order. */
  verify(sessionId: string | undefined): ChainVerification {
    const read = this.db.transaction((): ChainVerification => {
      const headRows = (
        sessionId === undefined
          ? this.sql("SELECT session_id, seq, hash FROM chain_heads").all()
          : this.db
              .prepare("SELECT session_id, seq, hash FROM chain_heads WHERE session_id = ?")
              .all(sessionId)
      ) as Row[];
      const heads = new Map<string, ChainHead>(
        headRows.map((row) => [
          String(row.session_id),
          { seq: Number(row.seq), hash: String(row.hash) },
        ]),
      );
      const verifier = new ChainVerifier((id) => heads.get(id));
      const rows =
        sessionId === undefined
          ? this.sql("SELECT * FROM audit_events ORDER BY session_id, seq").iterate()
          : this.db
              .prepare("SELECT * FROM audit_events WHERE session_id = ? ORDER BY seq")
              .iterate(sessionId);
      for (const row of rows) {
        if (unpackTrailRow(row as Row).some((link) => verifier.row(link))) break;
      }
      return verifier.finish(heads.keys());
    });
    // A read transaction: the heads and the rows are one snapshot, even while others append.
    return read.deferred();
  }
}

/**
 * Texts every event a filter on a call id or a tool wants holds in its canonical JSON (which
 * escapes strings as JSON.stringify does). A stored id with U+FFFD may stand for an id that held
 * a NUL or a lone surrogate, written otherwise in the text: no needle then.
 */
function packedRowNeedles(filter: EventFilter): string[] {
  const needles: string[] = [];
  for (const [key, value] of [
    ["callId", filter.callId],
    ["tool", filter.tool],
  ] as const) {
    if (value !== undefined && !value.includes("\ufffd")) {
      needles.push(`"${key}":${JSON.stringify(value)}`);
    }
  }
  return needles;
}

/** The filters a packed row's columns cannot answer for each of its events. */
function matches(link: LinkColumns, filter: EventFilter): boolean {
  if (filter.type !== undefined && link.type !== filter.type) return false;
  if (filter.labelled === true && link.type !== "finished") return false;
  if (filter.callId !== undefined && link.callId !== filter.callId) return false;
  if (filter.tool !== undefined && link.tool !== filter.tool) return false;
  if (filter.since !== undefined && link.at < filter.since) return false;
  return filter.afterSeq === undefined || link.seq > filter.afterSeq;
}
