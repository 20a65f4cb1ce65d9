import { hash } from "node:crypto";
import type { EmitOptions } from "../src/checkpoint/call-event.js";
import type { ToolResult } from "../src/checkpoint/tool-result.js";
import { canonicalJson } from "../src/shared/canonical-json.js";
import type { CallState, ClaimOptions, ClaimResult } from "../src/store/call-record.js";
import { resultJson } from "../src/store/result-json.js";
import type { Database, Statement } from "../src/store/sqlite/sqlite-driver.js";
import type { Store } from "../src/store/store.js";
import { isIntent, isTerminal, type StoreEvent } from "../src/store/store-event.js";
import { type BoundFile, openBoundFile } from "./bound-file.js";
import { untrackedStore } from "./untracked-store.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (session_id TEXT NOT NULL, call_id TEXT NOT NULL, state TEXT NOT NULL, seq INTEGER NOT NULL, UNIQUE (session_id, call_id));
CREATE TABLE IF NOT EXISTS heads (session_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, hash TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS links (session_id TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (session_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS made (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL);
`;

/** What a call's entry in the log says of it: what a claim of its id must answer. */
export interface CallEntry {
  readonly callId: string;
  readonly state: CallState;
  readonly tool: string;
  readonly owner: string;
  readonly argsHash?: string;
  readonly status?: string;
  readonly result?: string;
}

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
      if (options.sessionPatch?.metadata !== undefined) log.patch(options.sessionPatch.metadata);
    },
    queueSessionUpdate: async (_sessionId, patch) => {
      if (patch.metadata !== undefined) log.patch(patch.metadata);
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
  /** Each session's calls and chain head, as the log says to `seen`. */
  private calls = new Map<string, Map<string, CallEntry>>();
  private heads = new Map<string, string>();
  private seen = 0;
  /** This writer's rows whose tables are not made yet. */
  private unmade: {
    links: { sessionId: string; seq: number; hash: string }[];
    calls: { sessionId: string; entry: CallEntry; seq: number }[];
  } = { links: [], calls: [] };
  private version: unknown;
  private readonly statements: Record<string, Statement>;
  private readonly db: Database;

  constructor(
    private readonly file: BoundFile,
    private readonly owner: string,
  ) {
    const db = file.db;
    this.db = db;
    const prepare = (sql: string) => db.prepare(sql);
    this.statements = {
      tail: prepare("SELECT seq, session_id, body, hash FROM log WHERE seq > ? ORDER BY seq"),
      version: prepare("PRAGMA data_version"),
      row: prepare("INSERT INTO log (session_id, body, hash) VALUES (?, ?, ?)"),
      link: prepare("INSERT INTO links (session_id, seq) VALUES (?, ?)"),
      head: prepare("INSERT OR REPLACE INTO heads (session_id, seq, hash) VALUES (?, ?, ?)"),
      call: prepare(
        "INSERT INTO calls (session_id, call_id, state, seq) VALUES (?, ?, ?, ?) ON CONFLICT (session_id, call_id) DO UPDATE SET state = excluded.state, seq = excluded.seq",
      ),
      made: prepare("INSERT OR REPLACE INTO made (id, seq) VALUES (1, ?)"),
    };
    this.readTail();
  }

  add(event: StoreEvent): void {
    if (this.events.length > 0 && event.sessionId !== this.sessionId) this.commit();
    this.sessionId = event.sessionId ?? "";
    this.events.push(
      event.type === "decided" || event.type === "log" ? canonicalJson(event) : event,
    );
    if (event.type === "finished") this.finished.set(event.callId, event);
  }

  claim(sessionId: string, callId: string, options: ClaimOptions): ClaimResult {
    this.checkVersion();
    const found = this.calls.get(sessionId)?.get(callId);
    if (found) {
      return {
        status: "seen",
        state: found.state,
        tool: found.tool,
        ...(found.argsHash === undefined ? {} : { argsHash: found.argsHash }),
      };
    }
    const claim = { tool: options.tool ?? "", argsHash: options.argsHash };
    this.claims.set(callId, claim);
    if (options.start === undefined) return { status: "claimed" };
    this.add(options.start);
    this.moved.push({
      callId,
      state: "started",
      tool: claim.tool,
      owner: this.owner,
      ...(claim.argsHash === undefined ? {} : { argsHash: claim.argsHash }),
    });
    this.commit();
    return { status: "claimed", started: true };
  }

  result(callId: string, result: ToolResult): void {
    this.results.set(callId, resultJson(result) ?? JSON.stringify(result));
  }

  holds(callId: string): boolean {
    return this.finished.has(callId) || this.results.has(callId);
  }

  addMessages(_sessionId: string, messages: readonly unknown[]): void {
    for (const message of messages) this.messages.push(JSON.stringify(message));
  }

  patch(metadata: unknown): void {
    this.metadata = JSON.stringify(metadata);
  }

  /**
   * Everything waiting, in one row of one table, in one transaction; with `make`, also the
   * tables made from this writer's rows since the last time (the calls ledger, the chain heads,
   * the session index of the rows, and how far they are made).
   */
  commit({ make = false }: { make?: boolean } = {}): void {
    const { events, sessionId, finished, results, messages, metadata } = this;
    if (events.length === 0 && messages.length === 0 && metadata === undefined) {
      if (make && this.unmade.links.length > 0) {
        this.transaction(() => this.make());
        this.unmade = { links: [], calls: [] };
      }
      return;
    }
    const moved = this.moved;
    this.events = [];
    this.moved = [];
    this.finished = new Map();
    this.messages = [];
    this.metadata = undefined;
    for (const [callId, event] of finished) {
      const claim = this.claims.get(callId);
      this.claims.delete(callId);
      const done = event as Extract<StoreEvent, { type: "finished" }>;
      const result = results.get(callId);
      results.delete(callId);
      moved.push({
        callId,
        state: "finished",
        tool: done.tool,
        owner: this.owner,
        ...(claim?.argsHash === undefined ? {} : { argsHash: claim.argsHash }),
        status: done.status,
        ...(result === undefined ? {} : { result }),
      });
    }
    const texts = events.map((event) => (typeof event === "string" ? event : canonicalJson(event)));
    const text = bodyText(texts, moved, messages, metadata);
    let link = { sessionId, seq: 0, hash: "" };
    this.transaction(() => {
      this.checkVersion();
      const next = hash("sha256", (this.heads.get(sessionId) ?? "") + text);
      const { lastInsertRowid } = (this.statements.row as Statement).run(sessionId, text, next);
      link = { sessionId, seq: Number(lastInsertRowid), hash: next };
      if (make) this.make(link, moved);
    });
    this.seen = link.seq;
    this.heads.set(sessionId, link.hash);
    this.remember(sessionId, moved);
    if (make) {
      this.unmade = { links: [], calls: [] };
    } else {
      this.unmade.links.push(link);
      for (const entry of moved) this.unmade.calls.push({ sessionId, entry, seq: link.seq });
    }
  }

  /** One write transaction, then the file check after its commit. */
  private transaction(write: () => void): void {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      write();
      this.db.exec("COMMIT");
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
    // As docket's file guard: the path must still name the file just written.
    this.file.check();
  }

  /** The tables made from this writer's rows since the last time (and `link`, this one's). */
  private make(
    link?: { sessionId: string; seq: number; hash: string },
    moved: readonly CallEntry[] = [],
  ): void {
    const links = link ? [...this.unmade.links, link] : this.unmade.links;
    const calls = [
      ...this.unmade.calls,
      ...moved.map((entry) => ({ sessionId: link?.sessionId ?? "", entry, seq: link?.seq ?? 0 })),
    ];
    const heads = new Map<string, { seq: number; hash: string }>();
    for (const link of links) {
      this.run("link", link.sessionId, link.seq);
      heads.set(link.sessionId, link);
    }
    for (const [session, head] of heads) this.run("head", session, head.seq, head.hash);
    // A call's last entry is its state: one row a call, however often it moved.
    const last = new Map<string, { sessionId: string; entry: CallEntry; seq: number }>();
    for (const call of calls) last.set(`${call.sessionId}\n${call.entry.callId}`, call);
    // The ledger names the row that holds a call's last entry; the entry itself is in the log.
    for (const { sessionId, entry, seq } of last.values()) {
      this.run("call", sessionId, entry.callId, entry.state, seq);
    }
    const end = links.at(-1);
    if (end) this.run("made", end.seq);
  }

  private run(name: string, ...values: unknown[]): void {
    (this.statements[name] as Statement).run(...values);
  }

  close(): void {
    this.commit({ make: true });
    this.db.close();
  }

  /** Another connection committed: read the rows it appended. */
  private checkVersion(): void {
    const { data_version: version } = (this.statements.version as Statement).get() as {
      data_version: number;
    };
    if (version === this.version) return;
    this.version = version;
    this.readTail();
  }

  private readTail(): void {
    const rows = (this.statements.tail as Statement).all(this.seen) as {
      seq: number;
      session_id: string;
      body: string;
      hash: string;
    }[];
    for (const row of rows) {
      this.seen = row.seq;
      this.heads.set(row.session_id, row.hash);
      // What a claim answers from: each entry's state, tool, owner and arguments hash.
      const { calls } = JSON.parse(row.body) as LogBody;
      this.remember(
        row.session_id,
        calls.map(({ result: _result, ...entry }) => entry),
      );
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
