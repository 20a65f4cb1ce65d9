import { hash } from "node:crypto";
import type { EmitOptions } from "../src/checkpoint/call-event.js";
import type { ToolResult } from "../src/checkpoint/tool-result.js";
import { canonicalJson } from "../src/shared/canonical-json.js";
import type { CallState, ClaimOptions, ClaimResult } from "../src/store/call-record.js";
import { resultJson } from "../src/store/result-json.js";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import type { Database, Statement } from "../src/store/sqlite/sqlite-driver.js";
import type { Store } from "../src/store/store.js";
import { isIntent, isTerminal, type StoreEvent } from "../src/store/store-event.js";
import { type BoundFile, openBoundFile } from "./bound-file.js";
import { untrackedStore } from "./untracked-store.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS trail (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS heads (session_id TEXT PRIMARY KEY, hash TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS calls (session_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, state TEXT NOT NULL, owner TEXT NOT NULL, args_hash TEXT, status TEXT, output TEXT, result TEXT, PRIMARY KEY (session_id, call_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS trail_by_session ON trail (session_id);
CREATE INDEX IF NOT EXISTS messages_by_session ON messages (session_id);
CREATE TABLE IF NOT EXISTS session_state (session_id TEXT PRIMARY KEY, metadata TEXT) WITHOUT ROWID;
`;

/** What a lean trail file holds after a run: for the bench's own checks. */
export interface LeanTrailCounts {
  readonly links: number;
  readonly calls: number;
  readonly messages: number;
  /** Whether every link's hash is SHA-256 of its session's previous link's hash and its text. */
  readonly chained: boolean;
}

/**
 * docket's loop and checkpoint beside the leanest store of the audit trail's promises, written
 * in a SQLite file of its own (`path`, WAL and `synchronous=NORMAL` as docket's). It keeps:
 * - every event as canonical JSON, the events of one commit in one row (indexed by session, as
 *   docket's trail is) chained by SHA-256 to its session's head;
 * - a `calls` row a finished call: written with a write's intent (its state, owner and arguments
 *   hash) before the handler runs, and with its outcome and whole result after; a read's at its
 *   end;
 * - a batch's ids looked up before its claims; a claimed id the file holds is "seen". The ids and
 *   the head are kept in memory and read again once another connection has committed
 *   (`PRAGMA data_version`), as docket's caches are;
 * - the turn's messages (indexed by session), and the session's pending batch
 *   (`queueSessionUpdate`, `sessionPatch`);
 * - an intent, or a closing event or result not deferred, committed before `emit` resolves; what
 *   waits for the loop's flush is reported by `awaitsCommit`;
 * - a file check after every commit, as docket's `SqliteFileGuard` does.
 *
 * A decided or log event's text is made when it arrives: its handler may yet change what it
 * refers to. The others hold strings and numbers and are written at the commit. The file's WAL
 * starts a random number of frames into SQLite's 1,000-frame checkpoint, so that a run pays its
 * share of checkpoints as a long-lived file does. Not a docket configuration and no claim to
 * docket's replay of a repeated id's outcome, dedupe keys, rows for calls that never finish, the
 * index of open calls, signing, recovery or PostgreSQL: a bound for the
 * bench (`DOCKET_BENCH_LOOP=ceiling`, ADR 0100) beside `untrackedStore` (no trail) and
 * `unwrittenStore` (today's trail, uncommitted). Sessions and leases stay the wrapped store's.
 *
 * @example
 * ```ts
 * import { openStore } from "../src/store/open-store.js";
 * const store = leanTrailStore(await openStore(":memory:"), { path: "/tmp/lean.db" });
 * const { id } = await store.createSession({ principal: "p", configHash: "" }); // the store's own
 * await store.emit({ type: "requested", at: 0, sessionId: id, callId: "c1", tool: "noop",
 *   principal: "p", rawArguments: "{}", rawBytes: 2 }); // kept until the next commit
 * await store.flush(); // one chained row
 * ```
 */
export function leanTrailStore(
  store: Store,
  { path, walFill = Math.random() }: { path: string; walFill?: number },
): Store {
  const lean = new LeanTrail(openBoundFile(path, SCHEMA, walFill), store.owner);
  const keeps: Partial<Store> = {
    emit: async (event: StoreEvent, options: EmitOptions = {}) => {
      lean.add(event);
      if (isIntent(event) || (isTerminal(event) && options.defer !== true)) lean.commit();
    },
    emitMany: async (events: readonly StoreEvent[]) => {
      for (const event of events) lean.add(event);
      lean.commit();
    },
    prefetchCalls: async (sessionId, callIds) => lean.prefetch(sessionId ?? "", callIds),
    claimCall: async (sessionId, callId, options: ClaimOptions = {}) =>
      lean.claim(sessionId ?? "", callId, options),
    recordCallResult: async (_sessionId, callId, result: ToolResult, _key, options = {}) => {
      lean.result(callId, result);
      if (options.defer !== true) lean.commit();
    },
    awaitsCommit: (_sessionId, callId) => lean.holds(callId),
    queueBatch: async (sessionId, assistant, messages, options = {}) => {
      lean.addMessages(sessionId, [assistant, ...messages]);
      if (options.sessionPatch?.metadata !== undefined) {
        lean.patch(sessionId, options.sessionPatch.metadata);
      }
    },
    queueSessionUpdate: async (sessionId, patch) => {
      if (patch.metadata !== undefined) lean.patch(sessionId, patch.metadata);
    },
    commitQueued: async () => lean.commit(),
    flush: async () => {
      lean.commit();
      await store.flush();
    },
    close: async () => {
      lean.close();
      await store.close();
    },
  };
  return Object.assign(untrackedStore(store), keeps);
}

/**
 * The rows of a lean trail file (`leanTrailStore`), counted, and each session's chain checked.
 *
 * @example
 * ```ts
 * readLeanTrail("/tmp/lean.db"); // { links: 1, calls: 0, messages: 0, chained: true }
 * ```
 */
export function readLeanTrail(path: string): LeanTrailCounts {
  const db = openNodeSqlite(path);
  try {
    const rows = db.prepare("SELECT session_id, body, hash FROM trail ORDER BY seq").all() as {
      session_id: string;
      body: string;
      hash: string;
    }[];
    const heads = new Map<string, string>();
    let chained = true;
    for (const row of rows) {
      const next = hash("sha256", (heads.get(row.session_id) ?? "") + row.body);
      if (next !== row.hash) chained = false;
      heads.set(row.session_id, next);
    }
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { links: rows.length, calls: count("calls"), messages: count("messages"), chained };
  } finally {
    db.close();
  }
}

/** A call's claim, kept for its `calls` row. */
interface Claimed {
  readonly tool: string;
  readonly argsHash: string | undefined;
}

/** The lean trail's file, and what waits for its next commit. */
class LeanTrail {
  /** The events since the last commit, each as its text or as the event to write at the commit. */
  private events: (string | StoreEvent)[] = [];
  private sessionId = "";
  private claims = new Map<string, Claimed>();
  /** A write's calls row, written with its intent. */
  private started: { callId: string; claim: Claimed }[] = [];
  private finished = new Map<string, StoreEvent>();
  private results = new Map<string, string>();
  private messages: { sessionId: string; body: string }[] = [];
  private metadata: { sessionId: string; text: string } | undefined;
  private ahead = new Map<string, { state: CallState; tool: string; argsHash: string | null }>();
  /** Each session's call ids and chain head, valid while no other connection commits. */
  private ids = new Map<string, Set<string>>();
  private heads = new Map<string, string>();
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
      head: prepare("SELECT hash FROM heads WHERE session_id = ?"),
      ids: prepare("SELECT call_id FROM calls WHERE session_id = ?"),
      version: prepare("PRAGMA data_version"),
      setHead: prepare("INSERT OR REPLACE INTO heads (session_id, hash) VALUES (?, ?)"),
      link: prepare("INSERT INTO trail (session_id, body, hash) VALUES (?, ?, ?)"),
      start: prepare(
        "INSERT INTO calls (session_id, call_id, tool, state, owner, args_hash) VALUES (?, ?, ?, 'started', ?, ?)",
      ),
      finish: prepare(
        "INSERT INTO calls (session_id, call_id, tool, state, owner, args_hash, status, output, result) VALUES (?, ?, ?, 'finished', ?, ?, ?, ?, ?) ON CONFLICT (session_id, call_id) DO UPDATE SET state = 'finished', status = excluded.status, output = excluded.output, result = excluded.result",
      ),
      ahead: prepare(
        "SELECT call_id, state, tool, args_hash FROM calls WHERE session_id = ? AND call_id IN (SELECT value FROM json_each(?))",
      ),
      message: prepare("INSERT INTO messages (session_id, body) VALUES (?, ?)"),
      metadata: prepare(
        "INSERT OR REPLACE INTO session_state (session_id, metadata) VALUES (?, ?)",
      ),
    };
  }

  add(event: StoreEvent): void {
    if (this.events.length > 0 && event.sessionId !== this.sessionId) this.commit();
    this.sessionId = event.sessionId ?? "";
    const kept = event.type === "decided" || event.type === "log" ? canonicalJson(event) : event;
    this.events.push(kept);
    if (event.type === "finished") this.finished.set(event.callId, event);
  }

  prefetch(sessionId: string, callIds: readonly string[]): void {
    this.ahead.clear();
    const known = this.idsOf(sessionId);
    // Known absent unless the file holds the id: a claim of one of these ids reads nothing more.
    for (const id of callIds) this.ahead.set(id, { state: "requested", tool: "", argsHash: null });
    const held = callIds.filter((id) => known.has(id));
    if (held.length === 0) return;
    const rows = this.statements.ahead?.all(sessionId, JSON.stringify(held)) as {
      call_id: string;
      state: CallState;
      tool: string;
      args_hash: string | null;
    }[];
    for (const row of rows) {
      this.ahead.set(row.call_id, { state: row.state, tool: row.tool, argsHash: row.args_hash });
    }
  }

  /**
   * The session's call ids in the file, read once and then kept up to date by this writer's own
   * commits; read again when another connection has committed since (`PRAGMA data_version`), as
   * docket's `KnownCallIds` does.
   */
  private idsOf(sessionId: string): Set<string> {
    this.checkVersion();
    let ids = this.ids.get(sessionId);
    if (!ids) {
      const rows = this.statements.ids?.all(sessionId) as { call_id: string }[];
      ids = new Set(rows.map((row) => row.call_id));
      this.ids.set(sessionId, ids);
    }
    return ids;
  }

  /** Forget what another writer may have changed. */
  private checkVersion(): void {
    const row = (this.statements.version as Statement).get() as { data_version: number };
    const version = row.data_version;
    if (version === this.version) return;
    this.version = version;
    this.ids.clear();
    this.heads.clear();
  }

  claim(sessionId: string, callId: string, options: ClaimOptions): ClaimResult {
    let found = this.ahead.get(callId);
    this.ahead.delete(callId);
    if (!found) {
      this.prefetch(sessionId, [callId]);
      found = this.ahead.get(callId);
    }
    if (found && found.tool !== "") {
      return {
        status: "seen",
        state: found.state,
        tool: found.tool,
        argsHash: found.argsHash ?? undefined,
      };
    }
    const claim = { tool: options.tool ?? "", argsHash: options.argsHash };
    this.claims.set(callId, claim);
    if (options.start === undefined) return { status: "claimed" };
    // A write's intent and its calls row: committed, with whatever came before, before it runs.
    this.add(options.start);
    this.started.push({ callId, claim });
    this.commit();
    return { status: "claimed", started: true };
  }

  result(callId: string, result: ToolResult): void {
    // docket's own serialiser of a result, as any store of it would use.
    this.results.set(callId, resultJson(result) ?? JSON.stringify(result));
  }

  holds(callId: string): boolean {
    return this.finished.has(callId) || this.results.has(callId);
  }

  addMessages(sessionId: string, messages: readonly unknown[]): void {
    // A message is stored, not hashed: its JSON need not be canonical.
    for (const message of messages)
      this.messages.push({ sessionId, body: JSON.stringify(message) });
  }

  patch(sessionId: string, metadata: unknown): void {
    this.metadata = { sessionId, text: JSON.stringify(metadata) };
  }

  /** Everything waiting, in one transaction: one chained row, its calls rows, its messages. */
  commit(): void {
    const { events, sessionId, started, finished, results, messages, metadata } = this;
    if (events.length === 0 && messages.length === 0 && metadata === undefined) return;
    // docket's joined link text (ADR 0077): the events' canonical texts in a JSON array.
    const texts = events.map((event) => (typeof event === "string" ? event : canonicalJson(event)));
    const text = `[${texts.join(",\n")}]`;
    let next: string | undefined;
    this.db.exec("BEGIN IMMEDIATE");
    try {
      if (texts.length > 0) {
        this.checkVersion();
        const head =
          this.heads.get(sessionId) ??
          (this.statements.head?.get(sessionId) as { hash: string } | undefined)?.hash ??
          "";
        next = hash("sha256", head + text);
        this.run("link", sessionId, text, next);
        this.run("setHead", sessionId, next);
      }
      for (const { callId, claim } of started) {
        this.run("start", sessionId, callId, claim.tool, this.owner, claim.argsHash ?? null);
      }
      for (const [callId, event] of finished) {
        const claim = this.claims.get(callId);
        const done = event as Extract<StoreEvent, { type: "finished" }>;
        const result = results.get(callId) ?? null;
        this.run(
          "finish",
          sessionId,
          callId,
          done.tool,
          this.owner,
          claim?.argsHash ?? null,
          done.status,
          done.output ?? null,
          result,
        );
      }
      for (const message of messages) this.run("message", message.sessionId, message.body);
      if (metadata) this.run("metadata", metadata.sessionId, metadata.text);
      this.db.exec("COMMIT");
      // Kept: only now is what waited let go (a commit that fails leaves it for the next).
      this.events = [];
      this.started = [];
      this.finished = new Map();
      this.messages = [];
      this.metadata = undefined;
      for (const callId of finished.keys()) {
        this.claims.delete(callId);
        results.delete(callId);
      }
      if (next !== undefined) this.heads.set(sessionId, next);
      const ids = this.ids.get(sessionId);
      for (const { callId } of started) ids?.add(callId);
      for (const callId of finished.keys()) ids?.add(callId);
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
    // As docket's file guard: the path must still name the file just written.
    this.file.check();
  }

  close(): void {
    this.commit();
    this.db.close();
  }

  private run(name: string, ...values: unknown[]): void {
    (this.statements[name] as Statement).run(...values);
  }
}
