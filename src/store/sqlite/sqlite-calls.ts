import type { ToolResult } from "../../checkpoint/tool-result.js";
import { parseJson } from "../../shared/parse-json.js";
import type {
  CallFilter,
  CallOutcome,
  CallRecord,
  ClaimOptions,
  ClaimResult,
  DuplicateCall,
} from "../call-record.js";
import { type CallRow, isClaimable, newCallRow } from "../call-state.js";
import { storedText } from "../pending-event.js";
import { callFilterSql, listLimit } from "../store-input.js";
import {
  appendCallRowValues,
  CALL_COLUMNS,
  outcomeOfRow,
  type Row,
  seenClaim,
  toCallRecord,
  toCallRow,
} from "../store-rows.js";
import { type CallKeys, callKeys } from "./call-keys.js";
import { type FileMark, FileMarks } from "./file-mark.js";
import { KnownCallIds } from "./known-call-ids.js";
import { MultiRowInsert } from "./multi-row-insert.js";
import type { Database, Statement } from "./sqlite-driver.js";
import { statementCache } from "./statement-cache.js";

/**
 * True when reading `row` back from the table gives the row itself: its texts are kept as they
 * are (`storedText` returns them unchanged) and its arguments' hash is on it, not still to make.
 */
function storesAsHeld(row: CallRow): boolean {
  if (row.argsHash === undefined && row.decidedArgs !== undefined) return false;
  return (
    sameStored(row.sessionId) &&
    sameStored(row.callId) &&
    sameStored(row.tool) &&
    sameStored(row.principal) &&
    sameStored(row.status) &&
    sameStored(row.reason) &&
    sameStored(row.decision) &&
    sameStored(row.rule) &&
    sameStored(row.dedupeKey) &&
    sameStored(row.owner) &&
    sameStored(row.argsHash)
  );
}

function sameStored(text: string | undefined): boolean {
  return text === undefined || storedText(text) === text;
}

/** `session_no` first (version 10), then the columns both engines share. */
const NUMBERED_COLUMNS = ["session_no", ...CALL_COLUMNS] as const;

/** Ids per read of several calls: an IN list of at most this many parameters. */
const MAX_IDS_PER_READ = 64;

/** A call's row while queued items are folded into it, and whether it needs saving. */
export interface CallEntry {
  row: CallRow | undefined;
  changed: boolean;
  /** The row was in the table when the transaction read it (else it is inserted, not upserted). */
  stored: boolean;
}

/**
 * The `calls` table of a SQLite store. Every change is a read-modify-write of one row inside a
 * `BEGIN IMMEDIATE` transaction: SQLite's single writer lock makes it atomic across processes.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * const owner = "host/1/uuid";
 * const calls = new SqliteCalls(db, owner, () => Date.now());
 * calls.claim("ses_1", "call_1", {}); // { status: "claimed" }
 * ```
 */
export class SqliteCalls {
  private readonly loadStatement: Statement;
  private readonly upsert: MultiRowInsert;
  private readonly insert: MultiRowInsert;
  /** `SELECT … IN (?, …)` by number of ids. */
  private readonly loadByIds: (Statement | undefined)[] = [];
  private readonly duplicateStatement: Statement;
  private readonly openStatement: Statement;
  private readonly releaseStatement: Statement;
  private readonly sql: (source: string) => Statement;
  /** How the file keys its rows: by session number from version 10. */
  readonly keys: CallKeys;
  /**
   * The rows a batch read ahead (null: absent), with the mark they were read under: while the
   * file is unchanged but for this store's own writes (whose rows are dropped from here), the
   * append transaction takes them instead of reading them again.
   */
  private ahead:
    | { mark: FileMark; sessionId: string; rows: Map<string, CallRow | null> }
    | undefined;
  /** The call ids of the sessions at hand, each set known whole while its mark holds (ADR 0090). */
  private readonly known = new KnownCallIds();

  constructor(
    private readonly db: Database,
    private readonly owner: string,
    private readonly now: () => number,
    private readonly marks: FileMarks = new FileMarks(db),
  ) {
    this.sql = statementCache(db);
    this.keys = callKeys(db);
    const { session, numbered } = this.keys;
    const columns = numbered ? NUMBERED_COLUMNS : CALL_COLUMNS;
    const head = `INSERT INTO calls (${columns.join(", ")}) VALUES`;
    // Every column but the session and the call id is replaced on conflict.
    const tail = `ON CONFLICT (${numbered ? "session_no" : "session_id"}, call_id) DO UPDATE SET ${CALL_COLUMNS.slice(
      2,
    )
      .map((column) => `${column} = excluded.${column}`)
      .join(", ")}`;
    this.loadStatement = db.prepare(`SELECT * FROM calls WHERE ${session} AND call_id = ?`);
    this.upsert = new MultiRowInsert(db, head, columns.length, tail);
    this.insert = new MultiRowInsert(db, head, columns.length);
    this.duplicateStatement = db.prepare(
      `SELECT call_id, result, finished_at FROM calls
       WHERE ${session} AND tool = ? AND dedupe_key = ? AND status = 'ok'
         AND result IS NOT NULL AND finished_at >= ?
       ORDER BY finished_at DESC LIMIT 1`,
    );
    this.openStatement = db.prepare(
      "SELECT * FROM calls WHERE state IN ('claimed', 'started') AND (? IS NULL OR session_id = ?)",
    );
    this.releaseStatement = db.prepare(
      `UPDATE calls SET state = 'requested', claimed_at = NULL, owner = NULL
       WHERE ${session} AND call_id = ? AND state = 'claimed' AND owner IS ?`,
    );
  }

  /** One row, or undefined. */
  load(sessionId: string, callId: string): CallRow | undefined {
    const row = this.loadStatement.get(sessionId, callId) as Row | undefined;
    return row ? toCallRow(row) : undefined;
  }

  /** The rows of several call ids of one session, in one read. */
  loadMany(sessionId: string, callIds: readonly string[]): CallRow[] {
    const rows: CallRow[] = [];
    for (let first = 0; first < callIds.length; first += MAX_IDS_PER_READ) {
      const ids =
        callIds.length <= MAX_IDS_PER_READ
          ? callIds
          : callIds.slice(first, first + MAX_IDS_PER_READ);
      // A statement per number of ids (at most 64), not padded to a power of two: a repeated id
      // in the IN list cost SQLite a seek of its own, and the padding a copy of the list.
      const size = ids.length;
      let statement = this.loadByIds[size];
      if (!statement) {
        statement = this.db.prepare(
          `SELECT * FROM calls WHERE ${this.keys.session} AND call_id IN (${new Array(size).fill("?").join(", ")})`,
        );
        this.loadByIds[size] = statement;
      }
      for (const row of statement.all(sessionId, ...ids) as Row[]) rows.push(toCallRow(row));
    }
    return rows;
  }

  /**
   * The rows of several call ids of one session, read ahead of a batch (outside a transaction):
   * kept until the batch's append, which uses them if the file has not changed meanwhile.
   */
  readAhead(sessionId: string, callIds: readonly string[]): CallRow[] {
    const rows = new Map<string, CallRow | null>();
    for (const callId of callIds) rows.set(callId, null);
    // None of the ids is among the session's, known whole: there is no row to read.
    const absentUnder = this.known.allAbsent(sessionId, callIds, this.marks);
    if (absentUnder !== undefined) {
      this.ahead = { mark: absentUnder, sessionId, rows };
      return [];
    }
    // Marked before the read (or earlier): a commit after the mark moves the version.
    const mark = this.marks.latest();
    if (!this.known.hasCalls(sessionId)) {
      if (this.keys.withoutCalls(sessionId)) {
        this.known.startEmpty(sessionId, mark);
        this.ahead = { mark, sessionId, rows };
        return [];
      }
      // A session's number is never taken back: it is not asked for again.
      this.known.noteCalls(sessionId);
    }
    const found = this.loadMany(sessionId, callIds);
    for (const row of found) rows.set(row.callId, row);
    this.ahead = { mark, sessionId, rows };
    return found;
  }

  /**
   * The rows of the calls that queued items touch, by session and call id: one query per
   * session (a batch has one), a row of undefined for a call not yet recorded.
   */
  loadFor(
    items: readonly { readonly sessionId: string; readonly callId: string }[],
  ): Map<string, Map<string, CallEntry>> {
    const sessions = new Map<string, Map<string, CallEntry>>();
    // A call's items come one after another (its events, claim and result): one lookup a run.
    let lastSession: string | undefined;
    let lastCall: string | undefined;
    for (const item of items) {
      if (item.callId === lastCall && item.sessionId === lastSession) continue;
      lastSession = item.sessionId;
      lastCall = item.callId;
      let calls = sessions.get(item.sessionId);
      if (!calls) {
        calls = new Map();
        sessions.set(item.sessionId, calls);
      }
      if (!calls.has(item.callId)) {
        calls.set(item.callId, { row: undefined, changed: false, stored: false });
      }
    }
    const ahead = this.aheadStill(sessions);
    for (const [sessionId, calls] of sessions) {
      let ids = [...calls.keys()];
      const known = ahead?.sessionId === sessionId ? ahead.rows : undefined;
      if (known) {
        ids = ids.filter((callId) => {
          const row = known.get(callId);
          if (row === undefined) return true;
          if (row !== null) {
            const entry = calls.get(callId) as CallEntry;
            entry.row = row;
            entry.stored = true;
          }
          return false;
        });
      }
      if (ids.length === 0) continue;
      const rows =
        ids.length === 1 ? [this.load(sessionId, ids[0] as string)] : this.loadMany(sessionId, ids);
      for (const row of rows) {
        const entry = row && calls.get(row.callId);
        if (entry) {
          entry.row = row;
          entry.stored = true;
        }
      }
    }
    return sessions;
  }

  /** The rows read ahead, if the file has not changed since (else they are dropped). */
  private aheadStill(sessions: ReadonlyMap<string, unknown>): SqliteCalls["ahead"] {
    const ahead = this.ahead;
    // Checked only when this write could use them: the check is a statement of its own.
    if (ahead === undefined || !sessions.has(ahead.sessionId)) return undefined;
    if (ahead.rows.size > 0 && this.marks.unchanged(ahead.mark)) return ahead;
    this.ahead = undefined;
    return undefined;
  }

  /** This store changes the row other than by `saveMany`: what was kept of it is dropped. */
  private written(sessionId: string, callId: string): void {
    if (this.ahead?.sessionId === sessionId) this.ahead.rows.delete(callId);
  }

  /**
   * This store saves a row the batch read ahead (inside a write transaction): it is kept as what
   * the table holds from then on, so a write call's second commit does not read back the row its
   * first wrote (ADR 0079). The mark still guards it: another connection's commit, or this
   * transaction undone, drops everything kept. A row that stores differently from how it is held
   * (a text SQLite would keep with replacement characters, arguments not hashed yet) is dropped.
   */
  private saved(row: CallRow): void {
    const ahead = this.ahead;
    // Only a row the batch read ahead is kept: what is kept stays the batch's size, however many
    // calls come one at a time after it.
    if (ahead?.sessionId !== row.sessionId || !ahead.rows.has(row.callId)) return;
    if (storesAsHeld(row)) ahead.rows.set(row.callId, row);
    else ahead.rows.delete(row.callId);
  }

  /** Insert or replace one row (call inside a transaction). */
  save(row: CallRow): void {
    this.saveMany([row]);
  }

  /**
   * Insert or replace rows, each key at most once (call inside a transaction). `absent` says the
   * rows were read as missing in this same write transaction: a plain INSERT then does.
   */
  saveMany(rows: readonly CallRow[], { absent = false }: { absent?: boolean } = {}): void {
    if (rows.length === 0) return;
    const statement = absent ? this.insert : this.upsert;
    statement.discard();
    // A batch's rows are of one session: its number is looked up once.
    let sessionId: string | undefined;
    let no = 0;
    for (const row of rows) {
      this.saved(row);
      this.known.saved(row.sessionId, row.callId);
      const target = statement.nextRow();
      if (this.keys.numbered) {
        if (row.sessionId !== sessionId) {
          sessionId = row.sessionId;
          no = this.keys.numberOf(sessionId);
        }
        target.push(no);
      }
      const first = target.length;
      appendCallRowValues(target, row);
      // SQLite keeps booleans as integers.
      target[first + 3] = row.writes === undefined ? null : row.writes ? 1 : 0;
    }
    statement.flush();
  }

  claim(sessionId: string, callId: string, options: ClaimOptions): ClaimResult {
    return this.db
      .transaction((): ClaimResult => {
        const row = this.load(sessionId, callId);
        const at = this.now();
        if (row && !isClaimable(row, options)) return seenClaim(row);
        const base = row ?? newCallRow(sessionId, callId, options.tool ?? "", at);
        this.save({
          ...base,
          tool: base.tool || (options.tool ?? ""),
          writes: options.writes ?? base.writes,
          dedupeKey: options.dedupeKey ?? base.dedupeKey,
          argsHash: options.argsHash ?? base.argsHash,
          state: "claimed",
          claimedAt: at,
          owner: this.owner,
        });
        return { status: "claimed" };
      })
      .immediate();
  }

  outcome(sessionId: string, callId: string): CallOutcome | undefined {
    const row = this.load(sessionId, callId);
    return row ? outcomeOfRow(row) : undefined;
  }

  findDuplicate(
    sessionId: string,
    tool: string,
    dedupeKey: string,
    sinceMs: number,
  ): DuplicateCall | undefined {
    const row = this.duplicateStatement.get(sessionId, tool, dedupeKey, sinceMs) as Row | undefined;
    if (!row) return undefined;
    return {
      callId: String(row.call_id),
      result: parseJson(String(row.result)) as ToolResult,
      finishedAt: Number(row.finished_at),
    };
  }

  list(filter: CallFilter): CallRecord[] {
    const { where, params } = callFilterSql(filter, {
      session: this.keys.session,
      anySession: this.keys.anySession,
    });
    const order = filter.fromCallId === undefined ? "rowid DESC" : "call_id";
    const rows = this.sql(`SELECT * FROM calls ${where} ORDER BY ${order} LIMIT ?`).all(
      ...params,
      listLimit(filter.limit),
    ) as Row[];
    return rows.map((row) => toCallRecord(toCallRow(row)));
  }

  /** Calls per session, counted on the primary key's index (no row is read), in one query. */
  count(sessionIds: readonly string[]): Map<string, number> {
    const rows = this.sql(this.keys.countBySession).all(JSON.stringify(sessionIds)) as Row[];
    return new Map(rows.map((row) => [String(row.session_id), Number(row.n)]));
  }

  /** Claimed or started calls, for recovery. */
  open(sessionId: string | undefined): CallRecord[] {
    const id = sessionId ?? null;
    return (this.openStatement.all(id, id) as Row[]).map((row) => toCallRecord(toCallRow(row)));
  }

  /** Release a claim that never started, if it is still held by `owner`. */
  release(call: CallRecord): void {
    this.written(call.sessionId, call.callId);
    this.releaseStatement.run(call.sessionId, call.callId, call.owner ?? null);
  }
}
