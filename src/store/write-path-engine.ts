import type { AttestationSigner, AuditAttestation } from "./audit-attestation.js";
import type { Awaitable } from "./awaitable.js";
import type { ClaimOptions, ClaimResult } from "./call-record.js";
import type { BatchAttestation, SavedMessages } from "./patched-sessions.js";
import type { PendingEvent } from "./pending-event.js";
import type { MessageText, PendingClaim, PendingWrite, SessionUpdate } from "./pending-write.js";

/**
 * The write path of an engine, in one place: every commit of the store's queue (events, claims,
 * call results, queued transcript batches), a write's claim with its intent, and transcript
 * batches. Each method is one transaction. The shared store (`engine-store.ts`) decides when
 * each is called (src/store/README.md, "Durability and buffering"); the engine only writes.
 *
 * @example
 * ```ts
 * declare const engine: WritePathEngine;
 * declare const queued: readonly import("./pending-write.js").PendingWrite[];
 * await engine.appendEvents(queued, 1); // one transaction, in order
 * ```
 */
export interface WritePathEngine {
  /**
   * True when `saveMessages` commits the queued items it is given in the same transaction as
   * the messages, and `appendEvents` takes queued transcript batches. Otherwise the store
   * flushes the queue first and saves transcript batches at once.
   */
  readonly atomicWithMessages: boolean;

  /** `key` names the commit (see `committed`); an engine whose commits never end in doubt ignores it. */
  appendEvents(items: readonly PendingWrite[], key?: number): Awaitable<void>;
  /**
   * Where a commit can fail without saying whether it happened (PostgreSQL: the connection lost
   * during COMMIT): whether the append that carried `key` was committed.
   */
  committed?(key: number): Promise<boolean>;
  /**
   * Where the engine can (SQLite): append and sign the given sessions' attestations in the same
   * transaction, so a batch's attestation costs no commit of its own. Returns what was signed.
   */
  appendAndSign?(
    items: readonly PendingWrite[],
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
  ): AuditAttestation[];

  saveMessages(
    sessionId: string,
    messages: readonly MessageText[],
    batch: boolean,
    createdAt: number,
    session?: SessionUpdate,
    /** Queued audit items to commit first, in the same transaction where the engine can. */
    items?: readonly PendingWrite[],
    /** Sign these sessions' attestations in the same commit (a batch that patches a row). */
    sign?: BatchAttestation,
  ): Awaitable<SavedMessages>;

  claimCall(sessionId: string, callId: string, options: ClaimOptions): Awaitable<ClaimResult>;
  /**
   * Optional: commit the queued items, a write's claim (`exclusive`) and its intent, if any, in
   * one transaction; when the id is taken by then, only the items, and the answer is `seen`.
   * With an intent the answer is `{ status: "claimed", started: true }`. With `sign` (a queued
   * item patches a session's row), those sessions are signed in the same transaction, as
   * `appendAndSign` does; only an engine with `appendAndSign` is given it. An engine whose
   * commits can end in doubt (`committed`, PostgreSQL) has none: the store queues the claim and
   * intent, and the queue's commit keys cover them as any other item (ADR 0105).
   */
  claimAndStart?(
    items: readonly PendingWrite[],
    claim: PendingClaim,
    intent: PendingEvent | undefined,
    sign?: BatchAttestation,
  ): Awaitable<ClaimCommit>;
}

/** What `claimAndStart` committed: the claim's answer and the attestations signed with it. */
export interface ClaimCommit {
  readonly result: ClaimResult;
  readonly attestations: readonly AuditAttestation[];
}
