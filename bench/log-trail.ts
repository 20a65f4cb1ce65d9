import { hash } from "node:crypto";
import type { EmitOptions } from "../src/checkpoint/call-event.js";
import type { ToolResult } from "../src/checkpoint/tool-result.js";
import { canonicalJson } from "../src/shared/canonical-json.js";
import type { ClaimOptions, ClaimResult } from "../src/store/call-record.js";
import { resultJson } from "../src/store/result-json.js";
import type { Statement } from "../src/store/sqlite/sqlite-driver.js";
import type { Store } from "../src/store/store.js";
import { isIntent, isTerminal, type StoreEvent } from "../src/store/store-event.js";
import { type BoundFile, openBoundFile } from "./bound-file.js";
import { type CallEntry, LOG_TABLES_SCHEMA, LogTables } from "./log-tables.js";
import { untrackedStore } from "./untracked-store.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL);
${LOG_TABLES_SCHEMA}`;

/**
 * One commit's row, parsed: its events, the calls it moved (each result as docket serialised
 * it), the messages and metadata it kept. The row's text holds each of them as written, not
 * quoted again.
 */
export interface LogBody {
  readonly events: readonly unknown[];
  readonly calls: readonly (Omit<CallEntry, "result"> & { readonly result?: unknown })[];
  readonly messages: readonly unknown[];
  readonly metadata?: unknown;
}

/** A row's text: the JSON texts already made go in as they are, so none is escaped twice. */
function bodyText(
  events: readonly string[],
  calls: readonly CallEntry[],
  messages: readonly string[],
  metadata: string | undefined,
): string {
  const entries = calls.map(({ result, ...entry }) => {
    const text = JSON.stringify(entry);
    return result === undefined ? text : `${text.slice(0, -1)},"result":${result}}`;
  });
  const tail = metadata === undefined ? "" : `,"metadata":${metadata}`;
  return `{"events":[${events.join(",")}],"calls":[${entries.join(",")}],"messages":[${messages.join(",")}]${tail}}`;
}

/**
 * docket's loop and checkpoint beside a trail that writes one row, in one table with no index,
 * for each commit a call waits on: the commit's events (canonical JSON), the calls it claimed,
 * started or finished (state, owner, arguments hash, outcome and result) and the turn's messages,
 * chained by SHA-256 to its session's previous row. A SQLite file of its own (`path`, WAL,
 * `synchronous=NORMAL`).
 *
 * The bound of the data model ADR 0076 and ADR 0082 name ("one table written per commit"). What
 * docket keeps in tables at every commit (the calls ledger and its key, the chain heads, the
 * session index of the trail) is made here from the log in bulk, in the commits that end a turn
 * or a flush (`make`): the ledger a row a call naming its state and the log row that holds its
 * last entry, the heads, the rows by session. A write's claim commit writes its one row and
 * nothing else. Between those, a claim is checked, and a head read, from memory, which is read
 * again from the log's tail when another connection has committed (`PRAGMA data_version`). A real
 * store of this layout must also read the made tables, and the log past them, when it opens, and
 * recover from the log a claim whose process died before its tables were made; those are not
 * counted, so the figure is the least such a store can cost. As `leanTrailStore`: an intent, or
 * a closing event or result not deferred, is committed before `emit` resolves, and the path is
 * checked after every commit. Not a docket configuration: a bound for the bench
 * (`DOCKET_BENCH_LOOP=ceiling`, ADR 0102).
 *
 * @example
 * ```ts
 * import { openStore } from "../src/store/open-store.js";
 * const store = logTrailStore(await openStore(":memory:"), { path: "/tmp/log.db" });
 * ```
 */
export function logTrailStore(
  store: Store,
  { path, walFill = Math.random() }: { path: string; walFill?: number },
): Store {
  const log = new LogTrail(openBoundFile(path, SCHEMA, walFill), store.owner);
  const keeps: Partial<Store> = {
    emit: async (event: StoreEvent, options: EmitOptions = {}) => {
      log.add(event);
      if (isIntent(event) || (isTerminal(event) && options.defer !== true)) log.commit();
    },
    emitMany: async (events: readonly StoreEvent[]) => {
      for (const event of events) log.add(event);
      log.commit({ make: true });
    },
    prefetchCalls: async () => {},
    claimCall: async (sessionId, callId, options: ClaimOptions = {}) =>
      log.claim(sessionId ?? "", callId, options),
    recordCallResult: async (_sessionId, callId, result: ToolResult, _key, options = {}) => {
      log.result(callId, result);
      if (options.defer !== true) log.commit();
    },
    awaitsCommit: (_sessionId, callId) => log.holds(callId),
    queueBatch: async (sessionId, assistant, messages, options = {}) => {
      log.addMessages(sessionId, [assistant, ...messages]);
      if (options.sessionPatch?.metadata !== undefined) {
        log.patch(sessionId, options.sessionPatch.metadata);
      }
    },
    queueSessionUpdate: async (sessionId, patch) => {
      if (patch.metadata !== undefined) log.patch(sessionId, patch.metadata);
    },
    commitQueued: async () => log.commit({ make: true }),
    flush: async () => {
      log.commit({ make: true });
      await store.flush();
    },
    close: async () => {
      log.close();
      await store.close();
    },
  };
  return Object.assign(untrackedStore(store), keeps);
}

/** Thrown inside a claim's transaction: another writer committed the id first. */
class ClaimTaken extends Error {
  constructor(readonly entry: CallEntry) {
    super(`call ${entry.callId} was claimed by another writer`);
  }
}

/** The answer to a claim of an id the log already holds. */
function seenClaim(entry: CallEntry): ClaimResult {
  return {
    status: "seen",
    state: entry.state,
    tool: entry.tool,
    ...(entry.argsHash === undefined ? {} : { argsHash: entry.argsHash }),
  };
}

/** The log trail's file, what it knows of its sessions, and what waits for its next commit. */
class LogTrail {
  private events: (string | StoreEvent)[] = [];
  private sessionId = "";
  private claims = new Map<string, { tool: string; argsHash: string | undefined }>();
  private moved: CallEntry[] = [];
  private finished = new Map<string, StoreEvent>();
  private results = new Map<string, string>();
  private messages: string[] = [];
  private metadata: string | undefined;
  /** Each session's calls and chain head, as the log says up to `seen`. */
  private calls = new Map<string, Map<string, CallEntry>>();
  private heads = new Map<string, string>();
  private seen = 0;
  private version: unknown;
  private readonly tables: LogTables;
  private readonly statements: Record<"tail" | "version" | "row", Statement>;

  constructor(
    private readonly file: BoundFile,
    private readonly owner: string,
  ) {
    const { db } = file;
    this.tables = new LogTables(db);
    this.statements = {
      tail: db.prepare("SELECT seq, session_id, body, hash FROM log WHERE seq > ? ORDER BY seq"),
      version: db.prepare("PRAGMA data_version"),
      row: db.prepare("INSERT INTO log (session_id, body, hash) VALUES (?, ?, ?)"),
    };
    this.checkVersion();
  }

  add(event: StoreEvent): void {
    this.forSession(event.sessionId ?? "");
    this.events.push(
      event.type === "decided" || event.type === "log" ? canonicalJson(event) : event,
    );
    if (event.type === "finished") this.finished.set(event.callId, event);
  }

  claim(sessionId: string, callId: string, options: ClaimOptions): ClaimResult {
    // A read's claim commits nothing: it reads what other writers committed first. A write's is
    // checked again under the write lock, in its commit.
    if (options.start === undefined) this.checkVersion();
    const found = this.calls.get(sessionId)?.get(callId);
    if (found) return seenClaim(found);
    const claim = { tool: options.tool ?? "", argsHash: options.argsHash };
    this.claims.set(callId, claim);
    if (options.start === undefined) return { status: "claimed" };
    const start = options.start;
    this.add(start);
    this.moved.push({
      callId,
      state: "started",
      tool: claim.tool,
      owner: this.owner,
      ...(claim.argsHash === undefined ? {} : { argsHash: claim.argsHash }),
    });
    try {
      this.commit({ claiming: callId });
    } catch (error) {
      if (!(error instanceof ClaimTaken)) throw error;
      // Taken meanwhile: nothing of that commit happened; the rest goes without claim and intent.
      this.events = this.events.filter((event) => event !== start);
      this.moved = this.moved.filter((entry) => entry.callId !== callId);
      this.claims.delete(callId);
      this.commit();
      return seenClaim(error.entry);
    }
    return { status: "claimed", started: true };
  }

  result(callId: string, result: ToolResult): void {
    this.results.set(callId, resultJson(result) ?? JSON.stringify(result));
  }

  holds(callId: string): boolean {
    return this.finished.has(callId) || this.results.has(callId);
  }

  addMessages(sessionId: string, messages: readonly unknown[]): void {
    this.forSession(sessionId);
    for (const message of messages) this.messages.push(JSON.stringify(message));
  }

  patch(sessionId: string, metadata: unknown): void {
    this.forSession(sessionId);
    this.metadata = JSON.stringify(metadata);
  }

  /**
   * Everything waiting, in one row of one table, in one transaction; with `make`, also the
   * tables of every committed row not yet made (`LogTables`). What waits is let go only once the
   * commit is kept: a commit that fails leaves it all for the next.
   */
  commit({ make = false, claiming }: { make?: boolean; claiming?: string } = {}): void {
    const { events, sessionId, finished, results, messages, metadata } = this;
    if (events.length === 0 && messages.length === 0 && metadata === undefined) {
      if (make && this.tables.pending) {
        this.transaction(() => this.tables.make());
        this.tables.clear();
        this.file.check();
      }
      return;
    }
    const moved = [...this.moved];
    for (const [callId, event] of finished) {
      const done = event as Extract<StoreEvent, { type: "finished" }>;
      const argsHash = this.claims.get(callId)?.argsHash;
      const result = results.get(callId);
      moved.push({
        callId,
        state: "finished",
        tool: done.tool,
        owner: this.owner,
        ...(argsHash === undefined ? {} : { argsHash }),
        status: done.status,
        ...(result === undefined ? {} : { result }),
      });
    }
    const texts = events.map((event) => (typeof event === "string" ? event : canonicalJson(event)));
    const text = bodyText(texts, moved, messages, metadata);
    let row = {
      sessionId,
      seq: 0,
      hash: "",
      calls: moved,
      ...(metadata === undefined ? {} : { metadata }),
    };
    this.transaction(() => {
      this.checkVersion();
      const taken = claiming === undefined ? undefined : this.calls.get(sessionId)?.get(claiming);
      if (taken) throw new ClaimTaken(taken);
      const next = hash("sha256", (this.heads.get(sessionId) ?? "") + text);
      const { lastInsertRowid } = this.statements.row.run(sessionId, text, next);
      row = { ...row, seq: Number(lastInsertRowid), hash: next };
      if (make) this.tables.make(row);
    });
    // Kept: what waited is let go, and what the log now says is known, before the file check.
    this.events = [];
    this.moved = [];
    this.finished = new Map();
    this.messages = [];
    this.metadata = undefined;
    for (const callId of finished.keys()) {
      this.claims.delete(callId);
      results.delete(callId);
    }
    this.seen = row.seq;
    this.heads.set(sessionId, row.hash);
    this.remember(sessionId, moved);
    if (make) this.tables.clear();
    else this.tables.note(row);
    // As docket's file guard: the path must still name the file just written.
    this.file.check();
  }

  close(): void {
    this.commit({ make: true });
    this.file.db.close();
  }

  /** One write transaction: rolled back, and its error thrown, if any part of it fails. */
  private transaction(write: () => void): void {
    this.file.db.exec("BEGIN IMMEDIATE");
    try {
      write();
      this.file.db.exec("COMMIT");
    } catch (error) {
      this.file.db.exec("ROLLBACK");
      throw error;
    }
  }

  /** What waits belongs to one session: another's first commits what waits. */
  private forSession(sessionId: string): void {
    const waiting =
      this.events.length > 0 || this.messages.length > 0 || this.metadata !== undefined;
    if (waiting && sessionId !== this.sessionId) this.commit();
    this.sessionId = sessionId;
  }

  /** Another connection committed: read the rows it appended, and note them for the tables. */
  private checkVersion(): void {
    const { data_version: version } = this.statements.version.get() as { data_version: number };
    if (version === this.version) return;
    this.version = version;
    const rows = this.statements.tail.all(this.seen) as {
      seq: number;
      session_id: string;
      body: string;
      hash: string;
    }[];
    for (const { seq, session_id: sessionId, body, hash } of rows) {
      this.seen = seq;
      this.heads.set(sessionId, hash);
      const parsed = JSON.parse(body) as LogBody;
      // What a claim answers from: each entry's state, tool, owner and arguments hash.
      const calls = parsed.calls.map(({ result: _result, ...entry }) => entry);
      this.remember(sessionId, calls);
      this.tables.note({
        sessionId,
        seq,
        hash,
        calls,
        ...(parsed.metadata === undefined ? {} : { metadata: JSON.stringify(parsed.metadata) }),
      });
    }
  }

  private remember(sessionId: string, moved: readonly CallEntry[]): void {
    if (moved.length === 0) return;
    let calls = this.calls.get(sessionId);
    if (!calls) {
      calls = new Map();
      this.calls.set(sessionId, calls);
    }
    for (const entry of moved) calls.set(entry.callId, entry);
  }
}
