import type { RowAttestation } from "../attestation-plan.js";
import type { BatchAttestation, SavedMessages } from "../patched-sessions.js";
import type { MessageText, PendingWrite, SessionUpdate } from "../pending-write.js";
import type { RunLease } from "../run-writes.js";
import type { RunWritesEngine, StartedRow } from "../run-writes-engine.js";
import type { Session } from "../session-record.js";
import { toMessage } from "../store-rows.js";
import type { TranscriptMessage } from "../transcript-message.js";
import type { SqliteAttestations } from "./sqlite-attestations.js";
import type { Database } from "./sqlite-driver.js";
import type { SqliteLeases } from "./sqlite-leases.js";
import type { SqliteMessages } from "./sqlite-messages.js";
import type { SqliteSessions } from "./sqlite-sessions.js";

/** The tables a run's first and last commits write, and the engine's queued-item writer. */
export interface SqliteRunTables {
  readonly db: Database;
  readonly sessions: SqliteSessions;
  readonly leases: SqliteLeases;
  readonly messages: SqliteMessages;
  readonly attestations: SqliteAttestations;
  /** Writes queued audit items inside the caller's transaction. */
  readonly writeQueued: (items: readonly PendingWrite[]) => void;
  /** After every commit (the file is still the one opened, WAL bookkeeping). */
  readonly afterCommit: () => void;
}

/**
 * A run's first and last commits on SQLite, each one `BEGIN IMMEDIATE` transaction (ADR 0072):
 * the session's row, its lease and its first messages; then the closing messages, the status
 * and the lease's release.
 *
 * @example
 * ```ts
 * declare const tables: SqliteRunTables;
 * declare const session: import("../session-record.js").Session;
 * const runs = new SqliteRunWrites(tables);
 * runs.startSession(session, null, { owner: "host/1/uuid#run", ttlMs: 30_000 }, [], Date.now());
 * ```
 */
export class SqliteRunWrites implements RunWritesEngine {
  constructor(private readonly tables: SqliteRunTables) {}

  startSession(
    session: Session,
    metadata: string | null,
    lease: RunLease,
    messages: readonly MessageText[],
    createdAt: number,
    sign?: RowAttestation,
  ): StartedRow {
    const { db, sessions, leases, attestations } = this.tables;
    const started = db
      .transaction((): StartedRow => {
        // Taken first: a lease already held on this id leaves nothing written.
        const taken = leases.acquireIn(session.id, lease.owner, lease.ttlMs);
        if (taken.status === "held") return { lease: taken, attestations: [] };
        sessions.insertRow(session, metadata);
        if (messages.length > 0) {
          this.tables.messages.insert(session.id, messages, false, createdAt, undefined);
        }
        const signed = sign ? attestations.writeIn([session.id], sign.signer, sign.at) : [];
        return { lease: taken, attestations: signed };
      })
      .immediate();
    this.tables.afterCommit();
    return started;
  }

  endRun(
    sessionId: string,
    messages: readonly MessageText[],
    createdAt: number,
    update: SessionUpdate,
    release: string | undefined,
    items: readonly PendingWrite[],
    sign?: BatchAttestation,
  ): SavedMessages {
    const { db, leases, attestations } = this.tables;
    const saved = db
      .transaction((): SavedMessages => {
        this.tables.writeQueued(items);
        const first = this.tables.messages.insert(sessionId, messages, false, createdAt, update);
        if (release !== undefined) leases.release(sessionId, release);
        return {
          messages: savedMessages(sessionId, messages, first, createdAt, false),
          attestations: sign ? attestations.writeIn(sign.sessions, sign.signer, sign.at) : [],
        };
      })
      .immediate();
    this.tables.afterCommit();
    return saved;
  }
}

/**
 * Messages as inserted from `first` on, without reading them back.
 *
 * @example
 * ```ts
 * savedMessages("ses_1", [{ role: "user", content: "{}" }], 3, Date.now(), false)[0]?.seq; // 3
 * ```
 */
export function savedMessages(
  sessionId: string,
  messages: readonly MessageText[],
  first: number,
  createdAt: number,
  batch: boolean,
): TranscriptMessage[] {
  return messages.map((message, index) =>
    toMessage({
      session_id: sessionId,
      seq: first + index,
      role: message.role,
      content: message.content,
      created_at: createdAt,
      batch: batch ? first : null,
    }),
  );
}
