import type { EmitOptions, EventSink } from "../checkpoint/call-event.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  ApprovalPage,
  ApprovalPageFilter,
  DecideResult,
  NewApproval,
} from "./approval-record.js";
import type { ApprovalWatch } from "./approval-watch.js";
import type { MessageRow } from "./attestation-plan.js";
import type { AuditAttestation } from "./audit-attestation.js";
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
  MarkInterruptedOptions,
} from "./call-record.js";
import type { RunWrites } from "./run-writes.js";
import type { LeaseResult, SessionLease } from "./session-lease.js";
import type { NewSession, Session, SessionFilter, SessionPatch } from "./session-record.js";
import type { StoreEvent } from "./store-event.js";
import type { NewMessage, TranscriptMessage } from "./transcript-message.js";

/** Options of `Store.saveBatch`. */
export interface SaveBatchOptions {
  /** Applied to the session's row in the batch's transaction. */
  readonly sessionPatch?: SessionPatch;
}

/**
 * Where docket keeps sessions, transcripts, the audit trail, calls and approvals. One interface,
 * two engines (SQLite, PostgreSQL), the same contract tests. Every method is async, whatever
 * the engine. A store is an EventSink: give it to `createCheckpoint({ events: store })`.
 *
 * A `sessionId` of `undefined` means the store's default session (`""` unless configured).
 *
 * @example
 * ```ts
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * import { openStore } from "./open-store.js";
 * declare const tools: import("../tool/tool.js").Tool[];
 * declare const call: import("../checkpoint/tool-result.js").ToolCall;
 * const configHash = "ab12…"; // of the configuration the session runs under
 * const store = await openStore("sqlite:.docket/docket.db");
 * const session = await store.createSession({ principal: "agent", configHash });
 * const checkpoint = createCheckpoint({ tools, events: store });
 * await checkpoint.dispatch(call, { sessionId: session.id });
 * console.log(await store.verifyChain(session.id)); // { ok: true, checked: 4, sessions: 1 }
 * await store.close();
 * ```
 */
export interface Store extends EventSink, RunWrites {
  readonly engine: "sqlite" | "postgres";
  /** The store's URL, without a password. */
  readonly location: string;
  /** The chain that events without a session join. */
  readonly defaultSession: string;
  /** This instance's owner id (`host/pid/uuid`), recorded on the calls it claims or starts. */
  readonly owner: string;

  // Sessions.
  createSession(input: NewSession): Promise<Session>;
  getSession(id: string): Promise<Session | undefined>;
  /** Newest first. */
  listSessions(filter?: SessionFilter): Promise<Session[]>;
  /** Throws DocketError("unknown_session") when there is no such session. */
  updateSession(id: string, patch: SessionPatch): Promise<Session>;

  // Transcript.
  appendMessage(sessionId: string, message: NewMessage): Promise<TranscriptMessage>;
  /**
   * An assistant message that requests tools and all of its results, in one transaction: no
   * reader ever sees the request without its results. `sessionPatch` changes the session's row
   * in the same transaction (the loop clears its pending batch this way).
   */
  saveBatch(
    sessionId: string,
    assistant: NewMessage,
    results: readonly NewMessage[],
    options?: SaveBatchOptions,
  ): Promise<TranscriptMessage[]>;
  /**
   * Like `saveBatch` (one transaction, the same checks), but queued: committed with the audit
   * items around it at the next write of the queue (an intent, a flush, a read of the store) or
   * at the latest when the event loop is next idle. Order is kept. A crash before then loses
   * the batch whole, never half of it. The harness queues batches this way; a write's intent
   * and outcome are committed before and after it runs, whatever is queued. PostgreSQL saves
   * the batch at once, after what is queued (its audit appends run a locking protocol of their
   * own and cannot share the batch's transaction).
   */
  queueBatch(
    sessionId: string,
    assistant: NewMessage,
    results: readonly NewMessage[],
    options?: SaveBatchOptions,
  ): Promise<void>;
  loadTranscript(sessionId: string): Promise<TranscriptMessage[]>;

  // Audit trail.
  /**
   * Append one event to its session's hash chain. An intent (`started` of a write) and a
   * terminal event are committed, with everything queued before them, before this resolves;
   * other events may be buffered briefly (see the engine's notes). With `{ defer: true }` a
   * terminal event other than `awaiting_approval` is buffered too, for a caller that flushes.
   */
  emit(event: StoreEvent, options?: EmitOptions): Promise<void>;
  /** Append several events in one transaction; resolves when all are committed. */
  emitMany(events: readonly StoreEvent[]): Promise<void>;
  /** Commit every buffered event. */
  flush(): Promise<void>;
  /** Ordered by session, then seq. */
  listEvents(filter?: EventFilter): Promise<AuditRecord[]>;
  /** Check one session's chain, or every chain: names the first broken link. */
  verifyChain(sessionId?: string): Promise<ChainVerification>;

  // Signed attestations (docs/audit.md).
  /** The store's random id, named by its attestations; undefined on a store older than schema 4. */
  storeId(): Promise<string | undefined>;
  /**
   * Sign the sessions that moved since their last attestation now (a store opened with a
   * `signer` also does it at the end of every batch and on close); [] without a signer.
   */
  attest(): Promise<AuditAttestation[]>;
  /**
   * `attest()` under its name before ADR 0065, kept for one release.
   *
   * @deprecated Call `attest()`.
   */
  checkpoint(): Promise<AuditAttestation[]>; // legacy-name
  /** Signed attestations in the store, by session then n. */
  listAttestations(sessionId?: string): Promise<AuditAttestation[]>;
  /**
   * Hashes of the attestations whose copy to the digest log may still be owed: signed by a
   * process running now, or by one that died before delivering and that recovery has not yet
   * made good (ADR 0049).
   */
  listOwedAttestations(sessionId?: string): Promise<string[]>;
  /** The sessions that have events, whether or not they have a chain head. */
  listChainSessions(sessionId?: string): Promise<string[]>;
  listChainHeads(sessionId?: string): Promise<ChainHeadRecord[]>;
  /** One session's events as stored (event JSON as text), after `afterSeq`, at most `limit`. */
  listChainRows(
    sessionId: string,
    options?: { readonly afterSeq?: number; readonly limit?: number },
  ): Promise<ChainRow[]>;
  /** One session's messages with their content as stored, after `afterSeq`. */
  listMessageRows(sessionId: string, afterSeq?: number): Promise<MessageRow[]>;

  // Calls: safe to repeat.
  /**
   * Reserve a call id before running it (atomic: the unique key of `calls`). `claimed`: run it.
   * `seen`: it was claimed, started or finished before; return the outcome, never run it again.
   */
  claimCall(
    sessionId: string | undefined,
    callId: string,
    options?: ClaimOptions,
  ): Promise<ClaimResult>;
  /**
   * Read the records of a batch's call ids in one go, for the deferred claims that follow (the
   * checkpoint calls it before a batch). Claims answer the same with or without it.
   */
  prefetchCalls(sessionId: string | undefined, callIds: readonly string[]): Promise<void>;
  /** The recorded terminal outcome of a call id, if it has one. */
  callOutcome(sessionId: string | undefined, callId: string): Promise<CallOutcome | undefined>;
  /**
   * Keep a call's full result, and its dedupe key, for `findDuplicate` and `callOutcome`:
   * committed with everything queued before it, or with `{ defer: true }` at the next flush.
   */
  recordCallResult(
    sessionId: string | undefined,
    callId: string,
    result: ToolResult,
    dedupeKey?: string,
    options?: { readonly defer?: boolean },
  ): Promise<void>;
  /**
   * The latest successful result of `tool` with the same dedupe key in the session, finished at
   * or after `sinceMs` (ms since the epoch; e.g. `Date.now() - windowMs`).
   */
  findDuplicate(
    sessionId: string | undefined,
    tool: string,
    dedupeKey: string,
    sinceMs?: number,
  ): Promise<DuplicateCall | undefined>;
  /** Newest first. */
  listCalls(filter?: CallFilter): Promise<CallRecord[]>;
  /**
   * How many calls each of `sessionIds` recorded, in one read (a list page counts its sessions
   * without loading their calls). Every id given is a key; one with no calls maps to 0.
   */
  countCalls(sessionIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * Close every started write whose process is gone with an `interrupted` event, and release
   * claims of gone processes that never started. Returns the calls it interrupted.
   */
  markInterrupted(options?: MarkInterruptedOptions): Promise<CallRecord[]>;
  /** Calls closed as interrupted, newest first. */
  listInterrupted(sessionId?: string): Promise<CallRecord[]>;

  // Session leases: one runner per session across processes and machines (ADR 0011).
  /**
   * Take the session's lease for `owner` (default: this store's owner) for `ttlMs` (default
   * 30 s): `acquired` when it was free, expired (its holder died) or already `owner`'s;
   * otherwise `held`, naming the holder and since when. Never waits.
   */
  acquireLease(
    sessionId: string,
    options?: { readonly owner?: string; readonly ttlMs?: number },
  ): Promise<LeaseResult>;
  /** Extend `owner`'s lease by `ttlMs` from now; false when it is no longer `owner`'s. */
  renewLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Let go of `owner`'s lease (a lease another took over is left alone). */
  releaseLease(sessionId: string, owner: string): Promise<void>;
  /** The session's lease row, expired or not, if there is one. */
  getLease(sessionId: string): Promise<SessionLease | undefined>;

  // Approvals.
  /** Throws DocketError("duplicate_approval") when the id exists. */
  createApproval(input: NewApproval): Promise<Approval>;
  getApproval(id: string): Promise<Approval | undefined>;
  listApprovals(filter?: ApprovalFilter): Promise<Approval[]>;
  /**
   * Approvals a page at a time, newest first, with the total and a cursor for the next page
   * (`next`, absent on the last page). A bad cursor or limit is `invalid_filter`.
   */
  pageApprovals(filter?: ApprovalPageFilter): Promise<ApprovalPage>;
  /** Compare-and-set from `pending`: the first decision wins, a later one gets `conflict`. */
  decideApproval(id: string, decision: ApprovalDecision): Promise<DecideResult>;
  /**
   * Interest in an approval's decision, to take before reading it: `next(ms)` resolves when it
   * was decided (PostgreSQL: LISTEN/NOTIFY, from any process on the database) or after `ms`
   * (SQLite only polls). Close it when done.
   */
  watchApproval(id: string): Promise<ApprovalWatch>;
  /** Expire every pending approval whose time has passed; returns them. */
  expireApprovals(now?: number): Promise<Approval[]>;

  /** The schema version the store is at. */
  schemaVersion(): Promise<number>;
  /** Commit what is buffered and release the connection(s). Later calls throw `store_closed`. */
  close(): Promise<void>;
}
