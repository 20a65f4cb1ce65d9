import type { ToolResult } from "../checkpoint/tool-result.js";
import { DocketError } from "../errors/docket-error.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "./approval-record.js";
import type { AuditRecord, ChainVerification, EventFilter } from "./audit-record.js";
import { releaseOwner } from "./call-owner.js";
import type {
  CallFilter,
  CallOutcome,
  CallRecord,
  ClaimOptions,
  ClaimResult,
  DuplicateCall,
  MarkInterruptedOptions,
} from "./call-record.js";
import type { EngineOptions } from "./engine-options.js";
import { EventQueue } from "./event-queue.js";
import { interruptedEvent, recoverable } from "./interrupted-calls.js";
import { prepareEvent, storedText } from "./pending-event.js";
import type { NewSession, Session, SessionFilter, SessionPatch } from "./session-record.js";
import type { Store } from "./store.js";
import type { StoreEngine } from "./store-engine.js";
import type { StoreEvent } from "./store-event.js";
import {
  checkDecision,
  checkSessionPatch,
  jsonText,
  messageContent,
  newSession,
} from "./store-input.js";
import type { NewMessage, TranscriptMessage } from "./transcript-message.js";

/**
 * The Store both engines share: it checks inputs, orders appends through the event queue,
 * commits buffered events before every read (a reader sees what was emitted), and runs
 * recovery. The engine underneath only speaks SQL.
 *
 * @example
 * ```ts
 * const store: Store = new EngineStore(engine, options, owner, { buffer: true });
 * ```
 */
export class EngineStore implements Store {
  readonly engine: "sqlite" | "postgres";
  readonly location: string;
  readonly defaultSession: string;
  private readonly now: () => number;
  private readonly queue: EventQueue;
  private closed = false;

  constructor(
    private readonly db: StoreEngine,
    options: EngineOptions,
    readonly owner: string,
    { buffer = true }: { buffer?: boolean } = {},
  ) {
    this.engine = db.engine;
    this.location = options.location;
    this.defaultSession = options.defaultSession;
    this.now = options.clock;
    this.queue = new EventQueue((events) => db.appendEvents(events), { buffer });
  }

  async createSession(input: NewSession): Promise<Session> {
    this.assertWritable();
    const session = newSession(input, this.now());
    const metadata =
      session.metadata === undefined
        ? null
        : jsonText(session.metadata, "invalid_session", "The metadata");
    await this.db.insertSession(session, metadata);
    return session;
  }

  async getSession(id: string): Promise<Session | undefined> {
    this.assertOpen();
    return this.db.getSession(id);
  }

  async listSessions(filter: SessionFilter = {}): Promise<Session[]> {
    this.assertOpen();
    return this.db.listSessions(filter);
  }

  async updateSession(id: string, patch: SessionPatch): Promise<Session> {
    this.assertWritable();
    checkSessionPatch(patch);
    const metadata =
      patch.metadata === undefined
        ? null
        : jsonText(patch.metadata, "invalid_session", "The metadata");
    const session = await this.db.updateSession(id, patch, metadata, this.now());
    if (!session) throw new DocketError("unknown_session", `There is no session ${id}.`);
    return session;
  }

  async appendMessage(sessionId: string, message: NewMessage): Promise<TranscriptMessage> {
    this.assertWritable();
    const text = { role: message?.role, content: messageContent(message) };
    const [saved] = await this.db.saveMessages(sessionId, [text], false, this.now());
    return saved as TranscriptMessage;
  }

  async saveBatch(
    sessionId: string,
    assistant: NewMessage,
    results: readonly NewMessage[],
  ): Promise<TranscriptMessage[]> {
    this.assertWritable();
    if (assistant?.role !== "assistant") {
      throw new DocketError(
        "invalid_message",
        "A batch opens with the assistant message that requested the tools.",
      );
    }
    const texts = [assistant, ...results].map((message) => ({
      role: message.role,
      content: messageContent(message),
    }));
    return this.db.saveMessages(sessionId, texts, true, this.now());
  }

  async loadTranscript(sessionId: string): Promise<TranscriptMessage[]> {
    this.assertOpen();
    return this.db.loadTranscript(sessionId);
  }

  emit(event: StoreEvent): Promise<void> {
    try {
      this.assertWritable();
      return this.queue.add(prepareEvent(event, this.defaultSession));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  async emitMany(events: readonly StoreEvent[]): Promise<void> {
    this.assertWritable();
    const prepared = events.map((event) => prepareEvent(event, this.defaultSession));
    return this.queue.addMany(prepared);
  }

  async flush(): Promise<void> {
    this.assertOpen();
    return this.queue.flush();
  }

  async listEvents(filter: EventFilter = {}): Promise<AuditRecord[]> {
    await this.flush();
    return this.db.listEvents({
      ...filter,
      sessionId: stored(filter.sessionId),
      callId: stored(filter.callId),
      tool: stored(filter.tool),
    });
  }

  async verifyChain(sessionId?: string): Promise<ChainVerification> {
    await this.flush();
    return this.db.verifyChain(stored(sessionId));
  }

  async claimCall(
    sessionId: string | undefined,
    callId: string,
    options: ClaimOptions = {},
  ): Promise<ClaimResult> {
    this.assertWritable();
    await this.flush();
    const tool = options.tool === undefined ? undefined : storedText(options.tool);
    return this.db.claimCall(this.session(sessionId), storedText(callId), { ...options, tool });
  }

  async callOutcome(
    sessionId: string | undefined,
    callId: string,
  ): Promise<CallOutcome | undefined> {
    await this.flush();
    return this.db.callOutcome(this.session(sessionId), storedText(callId));
  }

  async recordCallResult(
    sessionId: string | undefined,
    callId: string,
    result: ToolResult,
    dedupeKey?: string,
  ): Promise<void> {
    this.assertWritable();
    await this.flush();
    jsonText(result, "invalid_call_result", "The result");
    await this.db.recordCallResult(
      this.session(sessionId),
      storedText(callId),
      result,
      dedupeKey === undefined ? undefined : storedText(dedupeKey),
    );
  }

  async findDuplicate(
    sessionId: string | undefined,
    tool: string,
    dedupeKey: string,
    sinceMs = 0,
  ): Promise<DuplicateCall | undefined> {
    await this.flush();
    return this.db.findDuplicate(
      this.session(sessionId),
      storedText(tool),
      storedText(dedupeKey),
      sinceMs,
    );
  }

  async listCalls(filter: CallFilter = {}): Promise<CallRecord[]> {
    await this.flush();
    return this.db.listCalls({
      ...filter,
      sessionId: stored(filter.sessionId),
      callId: stored(filter.callId),
      tool: stored(filter.tool),
    });
  }

  async markInterrupted({
    sessionId,
    all = false,
  }: MarkInterruptedOptions = {}): Promise<CallRecord[]> {
    this.assertWritable();
    await this.flush();
    const open = await this.db.openCalls(sessionId);
    const { interrupt, release } = recoverable(open, this.owner, all);
    for (const call of release) await this.db.releaseClaim(call);
    if (interrupt.length === 0) return [];
    const at = this.now();
    await this.emitMany(interrupt.map((call) => interruptedEvent(call, at)));
    const marked: CallRecord[] = [];
    for (const call of interrupt) {
      const [row] = await this.db.listCalls({
        sessionId: call.sessionId,
        callId: call.callId,
        limit: 1,
      });
      // Another process may have closed it first (it finished, or it recovered it).
      if (row?.state === "interrupted" && row.finishedAt === at) marked.push(row);
    }
    return marked;
  }

  async listInterrupted(sessionId?: string): Promise<CallRecord[]> {
    return this.listCalls({ sessionId, status: "interrupted" });
  }

  async createApproval(input: NewApproval): Promise<Approval> {
    this.assertWritable();
    return this.db.createApproval(input);
  }

  async getApproval(id: string): Promise<Approval | undefined> {
    this.assertOpen();
    return this.db.getApproval(id);
  }

  async listApprovals(filter: ApprovalFilter = {}): Promise<Approval[]> {
    this.assertOpen();
    return this.db.listApprovals(filter);
  }

  async decideApproval(id: string, decision: ApprovalDecision): Promise<DecideResult> {
    this.assertWritable();
    checkDecision(decision);
    return this.db.decideApproval(id, decision);
  }

  async expireApprovals(now: number = this.now()): Promise<Approval[]> {
    this.assertWritable();
    return this.db.expireApprovals(now);
  }

  async schemaVersion(): Promise<number> {
    this.assertOpen();
    return this.db.schemaVersion();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.db.readOnly) await this.queue.flush();
    } finally {
      this.closed = true;
      releaseOwner(this.owner);
      await this.db.close();
    }
  }

  private session(sessionId: string | undefined): string {
    return storedText(sessionId ?? this.defaultSession);
  }

  private assertOpen(): void {
    if (this.closed) throw new DocketError("store_closed", "The store is closed.");
  }

  private assertWritable(): void {
    this.assertOpen();
    if (this.db.readOnly) {
      throw new DocketError(
        "store_read_only",
        `The store at ${this.location} was opened read-only.`,
      );
    }
  }
}

function stored(text: string | undefined): string | undefined {
  return text === undefined ? undefined : storedText(text);
}
