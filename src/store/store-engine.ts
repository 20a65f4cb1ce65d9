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
} from "./call-record.js";
import type { PendingEvent } from "./pending-event.js";
import type { Session, SessionFilter, SessionPatch } from "./session-record.js";
import type { MessageRole, TranscriptMessage } from "./transcript-message.js";

/** A value now (SQLite) or later (PostgreSQL). */
export type Awaitable<T> = T | Promise<T>;

/** A message with its content already serialised. */
export interface MessageText {
  readonly role: MessageRole;
  readonly content: string;
}

/**
 * What an engine provides: the SQL of each operation, on inputs already checked. `EngineStore`
 * builds the Store on top (validation, the event queue, flush-before-read, recovery), so the two
 * engines differ only in how they talk to their database. Session ids here are resolved (never
 * undefined).
 *
 * @example
 * ```ts
 * const store = new EngineStore(SqliteEngine.open(target, owner, now), options, owner);
 * ```
 */
export interface StoreEngine {
  readonly engine: "sqlite" | "postgres";
  readonly readOnly: boolean;

  insertSession(session: Session, metadata: string | null): Awaitable<void>;
  getSession(id: string): Awaitable<Session | undefined>;
  listSessions(filter: SessionFilter): Awaitable<Session[]>;
  updateSession(
    id: string,
    patch: SessionPatch,
    metadata: string | null,
    now: number,
  ): Awaitable<Session | undefined>;

  saveMessages(
    sessionId: string,
    messages: readonly MessageText[],
    batch: boolean,
    createdAt: number,
  ): Awaitable<TranscriptMessage[]>;
  loadTranscript(sessionId: string): Awaitable<TranscriptMessage[]>;

  appendEvents(events: readonly PendingEvent[]): Awaitable<void>;
  listEvents(filter: EventFilter): Awaitable<AuditRecord[]>;
  verifyChain(sessionId: string | undefined): Awaitable<ChainVerification>;

  claimCall(sessionId: string, callId: string, options: ClaimOptions): Awaitable<ClaimResult>;
  callOutcome(sessionId: string, callId: string): Awaitable<CallOutcome | undefined>;
  recordCallResult(
    sessionId: string,
    callId: string,
    result: ToolResult,
    dedupeKey: string | undefined,
  ): Awaitable<void>;
  findDuplicate(
    sessionId: string,
    tool: string,
    dedupeKey: string,
    sinceMs: number,
  ): Awaitable<DuplicateCall | undefined>;
  listCalls(filter: CallFilter): Awaitable<CallRecord[]>;
  /** Claimed or started calls (one session or all), for recovery. */
  openCalls(sessionId: string | undefined): Awaitable<CallRecord[]>;
  /** Release a claim that never started, if its owner still holds it. */
  releaseClaim(call: CallRecord): Awaitable<void>;

  createApproval(input: NewApproval): Awaitable<Approval>;
  getApproval(id: string): Awaitable<Approval | undefined>;
  listApprovals(filter: ApprovalFilter): Awaitable<Approval[]>;
  decideApproval(id: string, decision: ApprovalDecision): Awaitable<DecideResult>;
  expireApprovals(now: number): Awaitable<Approval[]>;

  schemaVersion(): Awaitable<number>;
  close(): Awaitable<void>;
}
