import type { ApprovalPosition } from "./approval-cursor.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "./approval-record.js";
import type { ApprovalWatch } from "./approval-watch.js";
import type {
  MessageRow,
  RowAttestation,
  SessionUpdated,
  SignOptions,
  UnsignedTail,
} from "./attestation-plan.js";
import type { AttestationSigner, AuditAttestation } from "./audit-attestation.js";
import type { ChainRow } from "./audit-chain.js";
import type {
  AuditRecord,
  ChainHeadRecord,
  ChainVerification,
  EventFilter,
} from "./audit-record.js";
import type {
  CallFilter,
  CallOutcome,
  CallRecord,
  ClaimOptions,
  ClaimResult,
  DuplicateCall,
} from "./call-record.js";
import type { CallRow } from "./call-state.js";
import type { BatchAttestation, SavedMessages } from "./patched-sessions.js";
import type { PendingEvent } from "./pending-event.js";
import type { MessageText, PendingClaim, PendingWrite, SessionUpdate } from "./pending-write.js";

export type { MessageText, SessionUpdate } from "./pending-write.js";

import type { OwedDeliveries } from "./owed-deliveries.js";
import type { RunWritesEngine } from "./run-writes.js";
import type { LeaseTable } from "./session-lease.js";
import type { Session, SessionFilter, SessionPatch } from "./session-record.js";
import type { TranscriptMessage } from "./transcript-message.js";

/** A value now (SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

export interface StoreEngine extends RunWritesEngine {
  readonly engine: "sqlite" | "postgres";
  readonly readOnly: boolean;
  /**
   * True when `saveMessages` commits the queued items it is given in the same transaction as
   * the messages, and `appendEvents` takes queued transcript batches. Otherwise the store
   * flushes the queue first and saves transcript batches at once.
   */
  readonly atomicWithMessages: boolean;
  /** Who runs which session (ADR 0011). */
  readonly leases: LeaseTable;
  /** Which signing processes may owe digest-log copies (ADR 0049). */
  readonly deliveries: OwedDeliveries;

  /** Insert a new session's row; with `sign`, its first attestation in the same commit (returned). */
  insertSession(
    session: Session,
    metadata: string | null,
    sign?: RowAttestation,
  ): Awaitable<AuditAttestation[]>;
  getSession(id: string): Awaitable<Session | undefined>;
  listSessions(filter: SessionFilter): Awaitable<Session[]>;
  /**
   * Update a session's row (undefined when there is none); with `sign`, its attestation in the
   * same commit, so the change is never acknowledged unsigned.
   */
  updateSession(
    id: string,
    patch: SessionPatch,
    metadata: string | null,
    now: number,
    sign?: RowAttestation,
  ): Awaitable<SessionUpdated | undefined>;

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
  loadTranscript(sessionId: string): Awaitable<TranscriptMessage[]>;

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
  listEvents(filter: EventFilter): Awaitable<AuditRecord[]>;
  verifyChain(sessionId: string | undefined): Awaitable<ChainVerification>;

  /** The store's random id (schema 4); undefined on an older store. */
  storeId(): Awaitable<string | undefined>;
  /**
   * Sign and write the next attestation of each session whose chain or transcript moved since its
   * last one, under the session's write lock; returns what was written.
   */
  writeAttestations(
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
    options?: SignOptions,
  ): Awaitable<AuditAttestation[]>;
  /** Sessions whose chain runs past their last attestation (recovery after a crash). */
  unsignedTails(): Awaitable<UnsignedTail[]>;
  listAttestations(sessionId: string | undefined): Awaitable<AuditAttestation[]>;
  /** Sessions that have events, head or not (one key lookup per session). */
  listChainSessions(sessionId: string | undefined): Awaitable<string[]>;
  listChainHeads(sessionId: string | undefined): Awaitable<ChainHeadRecord[]>;
  /** Events as stored (the event's JSON text, not parsed), for verifying and exporting. */
  listChainRows(sessionId: string, afterSeq: number, limit: number): Awaitable<ChainRow[]>;
  /** Messages with their content text as stored. */
  listMessageRows(sessionId: string, afterSeq: number): Awaitable<MessageRow[]>;

  claimCall(sessionId: string, callId: string, options: ClaimOptions): Awaitable<ClaimResult>;
  /**
   * Optional: commit the queued items, a write's claim (`exclusive`) and its intent in one
   * transaction; when the id is taken by then, only the items, and the answer is `seen`.
   */
  claimAndStart?(
    items: readonly PendingWrite[],
    claim: PendingClaim,
    intent: PendingEvent,
  ): Awaitable<ClaimResult>;
  loadCall(sessionId: string, callId: string): Awaitable<CallRow | undefined>;
  loadCalls(sessionId: string, callIds: readonly string[]): Awaitable<CallRow[]>;
  callOutcome(sessionId: string, callId: string): Awaitable<CallOutcome | undefined>;
  findDuplicate(
    sessionId: string,
    tool: string,
    dedupeKey: string,
    sinceMs: number,
  ): Awaitable<DuplicateCall | undefined>;
  listCalls(filter: CallFilter): Awaitable<CallRecord[]>;
  /** Rows of `calls` per session id, for the ids that have any (ids as stored). */
  countCalls(sessionIds: readonly string[]): Awaitable<Map<string, number>>;
  /** Claimed or started calls (one session or all), for recovery. */
  openCalls(sessionId: string | undefined): Awaitable<CallRecord[]>;
  /** Release a claim that never started, if its owner still holds it. */
  releaseClaim(call: CallRecord): Awaitable<void>;

  createApproval(input: NewApproval): Awaitable<Approval>;
  getApproval(id: string): Awaitable<Approval | undefined>;
  listApprovals(filter: ApprovalFilter): Awaitable<Approval[]>;
  /** Newest first, after `after`: `limit` + 1 rows at most (one more says more exist), and the total. */
  pageApprovals(
    filter: ApprovalFilter,
    after: ApprovalPosition | undefined,
    limit: number,
  ): Awaitable<{ rows: Approval[]; total: number }>;
  decideApproval(id: string, decision: ApprovalDecision): Awaitable<DecideResult>;
  expireApprovals(now: number): Awaitable<Approval[]>;
  /** Where decisions can wake waiters (PostgreSQL LISTEN/NOTIFY); without it, waiters poll. */
  watchApproval?(id: string): Promise<ApprovalWatch>;

  schemaVersion(): Awaitable<number>;
  close(): Awaitable<void>;
}
