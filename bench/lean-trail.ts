import { hash } from "node:crypto";
import type { ToolResult } from "../src/checkpoint/tool-result.js";
import { canonicalJson } from "../src/shared/canonical-json.js";
import type { ClaimOptions, ClaimResult } from "../src/store/call-record.js";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import type { Database, Statement } from "../src/store/sqlite/sqlite-driver.js";
import type { Store } from "../src/store/store.js";
import type { StoreEvent } from "../src/store/store-event.js";
import { untrackedStore } from "./untracked-store.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS trail (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL, body TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS calls (session_id TEXT NOT NULL, call_id TEXT NOT NULL, tool TEXT NOT NULL, status TEXT NOT NULL, output TEXT, PRIMARY KEY (session_id, call_id)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS messages (seq INTEGER PRIMARY KEY, session_id TEXT NOT NULL, body TEXT NOT NULL);
`;

/** What a lean trail file holds after a run: for the bench's own checks. */
export interface LeanTrailCounts {
  readonly links: number;
  readonly calls: number;
  readonly messages: number;
  /** Whether every link's hash is SHA-256 of the previous link's hash and its text. */
  readonly chained: boolean;
}

/**
 * docket's loop and checkpoint beside the leanest trail that still keeps what a user of the
 * audit trail is promised, written in a SQLite file of its own (`path`):
 * - every event of every call, as canonical JSON: a decided event's made when it arrives (the
 *   handler may yet change the arguments it refers to), the others' at the commit;
 * - the events of one commit in one hash-chained row (a turn of read calls, or everything up to
 *   a write's intent);
 * - a `calls` row a finished call (its id, tool, status and output, for a repeated id to find);
 * - the turn's transcript messages;
 * - a write's intent committed with its claim before its handler runs, and the turn's outcomes
 *   committed before its results go on (the loop's flush).
 *
 * Each text is made once; nothing is kept between commits but the events and their texts.
 * Not a docket configuration: a bound for the bench (`DOCKET_BENCH_LOOP=ceiling`, ADR 0100) on
 * what a store of that shape costs, beside `untrackedStore` (no trail) and `unwrittenStore`
 * (today's trail, uncommitted). Sessions, leases and everything else stay the wrapped store's.
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
export function leanTrailStore(store: Store, { path }: { path: string }): Store {
  const lean = new LeanTrail(openNodeSqlite(path));
  const wrapper = untrackedStore(store);
  const keeps: Partial<Store> = {
    emit: async (event: StoreEvent) => {
      lean.add(event);
    },
    emitMany: async (events: readonly StoreEvent[]) => {
      for (const event of events) lean.add(event);
    },
    claimCall: async (
      _sessionId: string | undefined,
      _callId: string,
      options: ClaimOptions = {},
    ): Promise<ClaimResult> => {
      if (options.start === undefined) return { status: "claimed" };
      // A write's intent: committed, with whatever came before it, before its handler runs.
      lean.add(options.start);
      lean.commit();
      return { status: "claimed", started: true };
    },
    recordCallResult: async (_sessionId, _callId, _result: ToolResult) => {},
    queueBatch: async (sessionId, assistant, messages) => {
      lean.addMessages(sessionId, [assistant, ...messages]);
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
  return Object.assign(wrapper, keeps);
}

/**
 * The rows of a lean trail file (`leanTrailStore`), counted, and its chain checked.
 *
 * @example
 * ```ts
 * readLeanTrail("/tmp/lean.db"); // { links: 1, calls: 0, messages: 0, chained: true }
 * ```
 */
export function readLeanTrail(path: string): LeanTrailCounts {
  const db = openNodeSqlite(path);
  try {
    const rows = db.prepare("SELECT body, hash FROM trail ORDER BY seq").all() as {
      body: string;
      hash: string;
    }[];
    let head = "";
    let chained = true;
    for (const row of rows) {
      head = hash("sha256", head + row.body);
      if (head !== row.hash) chained = false;
    }
    const count = (table: string) =>
      (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { links: rows.length, calls: count("calls"), messages: count("messages"), chained };
  } finally {
    db.close();
  }
}

/** The lean trail's file, the events since its last commit, and its chain's head. */
class LeanTrail {
  /** The events since the last commit, each as its text or as the event to write at the commit. */
  private events: (string | StoreEvent)[] = [];
  /** The session of the events since the last commit (the bench's runs have one at a time). */
  private sessionId = "";
  private finished: Extract<StoreEvent, { type: "finished" }>[] = [];
  private messages: { sessionId: string; body: string }[] = [];
  private head = "";
  private readonly link: Statement;
  private readonly call: Statement;
  private readonly message: Statement;

  constructor(private readonly db: Database) {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.exec(SCHEMA);
    this.link = db.prepare("INSERT INTO trail (session_id, body, hash) VALUES (?, ?, ?)");
    this.call = db.prepare(
      "INSERT OR REPLACE INTO calls (session_id, call_id, tool, status, output) VALUES (?, ?, ?, ?, ?)",
    );
    this.message = db.prepare("INSERT INTO messages (session_id, body) VALUES (?, ?)");
  }

  add(event: StoreEvent): void {
    // A decided event's text now: its handler may yet change the arguments it refers to, and the
    // trail keeps what the checkpoint saw. The others hold strings and numbers: made at the commit.
    this.events.push(event.type === "decided" ? canonicalJson(event) : event);
    this.sessionId = event.sessionId ?? "";
    if (event.type === "finished") this.finished.push(event);
  }

  addMessages(sessionId: string, messages: readonly unknown[]): void {
    for (const message of messages) this.messages.push({ sessionId, body: canonicalJson(message) });
  }

  /** Everything since the last commit in one transaction: one chained row, its calls, its messages. */
  commit(): void {
    const { events, finished, messages } = this;
    if (events.length === 0 && messages.length === 0) return;
    this.events = [];
    this.finished = [];
    this.messages = [];
    // docket's joined link text (ADR 0077): the events' canonical texts in a JSON array.
    const texts = events.map((event) => (typeof event === "string" ? event : canonicalJson(event)));
    const text = texts.length > 0 ? `[${texts.join(",\n")}]` : "";
    const next = hash("sha256", this.head + text);
    this.db.exec("BEGIN IMMEDIATE");
    try {
      if (texts.length > 0) {
        this.link.run(this.sessionId, text, next);
        for (const event of finished) {
          this.call.run(
            event.sessionId ?? "",
            event.callId,
            event.tool,
            event.status,
            event.output ?? null,
          );
        }
      }
      for (const { sessionId, body } of messages) this.message.run(sessionId, body);
      this.db.exec("COMMIT");
      if (texts.length > 0) this.head = next;
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  close(): void {
    this.commit();
    this.db.close();
  }
}
