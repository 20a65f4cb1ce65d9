import { DocketError } from "../../errors/docket-error.js";
import type { MessageText, SessionUpdate } from "../pending-write.js";
import { type Row, toMessage } from "../store-rows.js";
import type { TranscriptMessage } from "../transcript-message.js";
import { type FileMark, FileMarks } from "./file-mark.js";
import { MultiRowInsert } from "./multi-row-insert.js";
import type { Database, Statement } from "./sqlite-driver.js";
import type { SqliteSessions } from "./sqlite-sessions.js";
import { statementCache } from "./statement-cache.js";

/**
 * The `messages` table of a SQLite store: transcripts, written inside the engine's write
 * transactions (a batch's messages commit with its events and its session patch).
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite-driver.js").Database;
 * declare const sessions: import("./sqlite-sessions.js").SqliteSessions;
 * const messages = new SqliteMessages(db, sessions);
 * messages.load("ses_1");
 * ```
 */
export class SqliteMessages {
  private readonly sql: (source: string) => Statement;
  private readonly rows: MultiRowInsert;
  /**
   * The last message this store wrote (its session exists, its seq is the last), with the mark it
   * holds under: the next batch of that session is appended without reading either again.
   */
  private last: { sessionId: string; seq: number; mark: FileMark } | undefined;

  constructor(
    db: Database,
    private readonly sessions: SqliteSessions,
    private readonly marks: FileMarks = new FileMarks(db),
  ) {
    this.sql = statementCache(db);
    this.rows = new MultiRowInsert(
      db,
      "INSERT INTO messages (session_id, seq, role, content, created_at, batch) VALUES",
      6,
    );
  }

  /**
   * Insert messages after the session's last one (inside a write transaction), and apply the
   * batch's session patch; returns the seq of the first. Queued batches are not read back:
   * nothing waits for their rows.
   */
  insert(
    sessionId: string,
    messages: readonly MessageText[],
    batch: boolean,
    createdAt: number,
    session: SessionUpdate | undefined,
  ): number {
    const first = this.lastSeq(sessionId) + 1;
    // One statement for the batch's messages (an assistant request and its results).
    this.rows.discard();
    messages.forEach((message, index) => {
      this.rows
        .nextRow()
        .push(
          sessionId,
          first + index,
          message.role,
          message.content,
          createdAt,
          batch ? first : null,
        );
    });
    this.rows.flush();
    // Marked after the rows: a rollback of this transaction moves the mark's `undone`.
    this.last = { sessionId, seq: first + messages.length - 1, mark: this.marks.latest() };
    if (session) this.sessions.patchRow(sessionId, session.patch, session.metadata, createdAt);
    return first;
  }

  /** The seq of the session's last message (0: none); fails for a session that does not exist. */
  private lastSeq(sessionId: string): number {
    const last = this.last;
    if (last?.sessionId === sessionId && this.marks.unchanged(last.mark)) return last.seq;
    this.last = undefined;
    if (this.sql("SELECT 1 FROM sessions WHERE id = ?").get(sessionId) === undefined) {
      throw new DocketError("unknown_session", `There is no session ${sessionId}.`);
    }
    const seq = this.sql("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?")
      .pluck()
      .get(sessionId);
    return Number(seq);
  }

  /** A session's transcript, in order. */
  load(sessionId: string): TranscriptMessage[] {
    const rows = this.sql("SELECT * FROM messages WHERE session_id = ? ORDER BY seq").all(
      sessionId,
    ) as Row[];
    return rows.map(toMessage);
  }
}
