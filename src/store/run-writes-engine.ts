import type { RowAttestation } from "./attestation-plan.js";
import type { AuditAttestation } from "./audit-attestation.js";
import type { Awaitable } from "./awaitable.js";
import type { BatchAttestation, SavedMessages } from "./patched-sessions.js";
import type { MessageText, PendingWrite, SessionUpdate } from "./pending-write.js";
import type { RunLease } from "./run-writes.js";
import type { LeaseResult } from "./session-lease.js";
import type { Session } from "./session-record.js";

/** What the engine committed when it started a session. */
export interface StartedRow {
  readonly lease: LeaseResult;
  readonly attestations: AuditAttestation[];
}

/**
 * A run's start and end as one commit each: the engine side.
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * declare const session: import("./session-record.js").Session;
 * await engine.startSession(session, null, { owner: "host/1/uuid#run", ttlMs: 30_000 }, [], Date.now());
 * ```
 */
export interface RunWritesEngine {
  /**
   * Insert the row, the lease and the messages (a lease already held on the id: nothing, and
   * the holder); with `sign`, the session's first attestation in the same commit.
   */
  startSession(
    session: Session,
    metadata: string | null,
    lease: RunLease,
    messages: readonly MessageText[],
    createdAt: number,
    sign?: RowAttestation,
  ): Awaitable<StartedRow>;
  /**
   * The queued items (where the engine commits them with messages), the messages, the session's
   * patch and the release of `release`'s lease in one transaction; with `sign`, those sessions'
   * attestations in it too.
   */
  endRun(
    sessionId: string,
    messages: readonly MessageText[],
    createdAt: number,
    update: SessionUpdate,
    release: string | undefined,
    items: readonly PendingWrite[],
    sign?: BatchAttestation,
  ): Awaitable<SavedMessages>;
}
