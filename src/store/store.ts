import type { EventSink } from "../checkpoint/checkpoint-event.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "./approval-record.js";
import type { AuditRecord, ChainVerification, EventFilter } from "./audit-record.js";
import type {
  CallFilter,
  CallOutcome,
  CallRecord,
  ClaimOptions,
  ClaimResult,
  DuplicateCall,
  MarkInterruptedOptions,
} from "./call-record.js";
import type { NewSession, Session, SessionFilter, SessionPatch } from "./session-record.js";
import type { StoreEvent } from "./store-event.js";
import type { NewMessage, TranscriptMessage } from "./transcript-message.js";

/**
 * Where docket keeps sessions, transcripts, the audit trail, calls and approvals. One interface,
 * two engines (SQLite, PostgreSQL), the same contract tests. Every method is async, whatever
 * the engine. A store is an EventSink: give it to `createCheckpoint({ events: store })`.
 *
 * A `sessionId` of `undefined` means the store's default session (`""` unless configured).
 *
 * @example
 * ```ts
 * const store = await openStore("sqlite:.docket/docket.db");
 * const session = await store.createSession({ principal: "agent", configHash });
 * const checkpoint = createCheckpoint({ tools, events: store });
 * await checkpoint.dispatch(call, { sessionId: session.id });
 * console.log(await store.verifyChain(session.id)); // { ok: true, checked: 4, sessions: 1 }
 * await store.close();
 * ```
 */
export interface Store extends EventSink {
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
   * reader ever sees the request without its results.
   */
  saveBatch(
    sessionId: string,
    assistant: NewMessage,
    results: readonly NewMessage[],
  ): Promise<TranscriptMessage[]>;
  loadTranscript(sessionId: string): Promise<TranscriptMessage[]>;

  // Audit trail.
  /**
   * Append one event to its session's hash chain. An intent (`started` of a write) and a
   * terminal event are committed, with everything queued before them, before this resolves;
   * other events may be buffered briefly (see the engine's notes).
   */
  emit(event: StoreEvent): Promise<void>;
  /** Append several events in one transaction; resolves when all are committed. */
  emitMany(events: readonly StoreEvent[]): Promise<void>;
  /** Commit every buffered event. */
  flush(): Promise<void>;
  /** Ordered by session, then seq. */
  listEvents(filter?: EventFilter): Promise<AuditRecord[]>;
  /** Check one session's chain, or every chain: names the first broken link. */
  verifyChain(sessionId?: string): Promise<ChainVerification>;

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
  /** The recorded terminal outcome of a call id, if it has one. */
  callOutcome(sessionId: string | undefined, callId: string): Promise<CallOutcome | undefined>;
  /** Keep a call's full result, and its dedupe key, for `findDuplicate` and `callOutcome`. */
  recordCallResult(
    sessionId: string | undefined,
    callId: string,
    result: ToolResult,
    dedupeKey?: string,
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
   * Close every started write whose process is gone with an `interrupted` event, and release
   * claims of gone processes that never started. Returns the calls it interrupted.
   */
  markInterrupted(options?: MarkInterruptedOptions): Promise<CallRecord[]>;
  /** Calls closed as interrupted, newest first. */
  listInterrupted(sessionId?: string): Promise<CallRecord[]>;

  // Approvals.
  /** Throws DocketError("duplicate_approval") when the id exists. */
  createApproval(input: NewApproval): Promise<Approval>;
  getApproval(id: string): Promise<Approval | undefined>;
  listApprovals(filter?: ApprovalFilter): Promise<Approval[]>;
  /** Compare-and-set from `pending`: the first decision wins, a later one gets `conflict`. */
  decideApproval(id: string, decision: ApprovalDecision): Promise<DecideResult>;
  /** Expire every pending approval whose time has passed; returns them. */
  expireApprovals(now?: number): Promise<Approval[]>;

  /** The schema version the store is at. */
  schemaVersion(): Promise<number>;
  /** Commit what is buffered and release the connection(s). Later calls throw `store_closed`. */
  close(): Promise<void>;
}
