import type { EmitOptions } from "../checkpoint/call-event.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import { DocketError } from "../errors/docket-error.js";
import type { AttestationSigner, AuditAttestation } from "./audit-attestation.js";
import { batchTexts } from "./batch-texts.js";
import { CallLookahead } from "./call-lookahead.js";
import { releaseOwner } from "./call-owner.js";
import type {
  CallRecord,
  ClaimOptions,
  ClaimResult,
  MarkInterruptedOptions,
} from "./call-record.js";
import { isClaimable, resultEcho } from "./call-state.js";
import { claimIntent } from "./claim-intent.js";
import { couldBeDuplicate } from "./could-be-duplicate.js";
import type { EngineOptions } from "./engine-options.js";
import { EngineStoreCoordination } from "./engine-store-coordination.js";
import type { EventQueue } from "./event-queue.js";
import { interruptOpenCalls } from "./interrupted-calls.js";
import { insertNewSession, startNewSession } from "./new-session-write.js";
import type { BatchAttestation } from "./patched-sessions.js";
import { prepareEvent, storedText } from "./pending-event.js";
import {
  type MessageText,
  type PendingResult,
  type PendingWrite,
  pendingClaim,
  type SessionUpdate,
} from "./pending-write.js";
import { resultJson } from "./result-json.js";
import type { RunEnd, SessionStart, StartedSession } from "./run-writes.js";
import type { NewSession, Session, SessionPatch } from "./session-record.js";
import type { SaveBatchOptions, Store } from "./store.js";
import type { StoreEngine } from "./store-engine.js";
import { isIntent, isTerminal, type StoreEvent } from "./store-event.js";
import { storeEventQueue } from "./store-event-queue.js";
import { checkSessionPatch, jsonText, messageTexts } from "./store-input.js";
import { seenClaim } from "./store-rows.js";
import { StoreSigning } from "./store-signing.js";
import type { NewMessage, TranscriptMessage } from "./transcript-message.js";

/**
 * The Store both engines share, and its write path in one place: it checks inputs, orders
 * appends through the event queue, signs, and runs recovery. Reads (`EngineStoreReads`) commit
 * buffered events first, so a reader sees what was emitted; leases and approvals are
 * `EngineStoreCoordination`. The engine underneath only speaks SQL.
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * declare const options: import("./engine-options.js").EngineOptions;
 * const owner = "host/1/uuid";
 * const store: import("./store.js").Store = new EngineStore(engine, options, owner, { buffer: true });
 * ```
 */
export class EngineStore extends EngineStoreCoordination implements Store {
  private readonly queue: EventQueue;
  private readonly lookahead: CallLookahead;
  /** Sessions known to exist (sessions are never deleted). */
  private readonly knownSessions = new Set<string>();
  /** Signing, when the store has a signer (never read-only). */
  private readonly signing: StoreSigning | undefined;

  constructor(
    db: StoreEngine,
    options: EngineOptions,
    owner: string,
    {
      buffer = true,
      signer,
      attestationIntervalMs = 2000,
    }: { buffer?: boolean; signer?: AttestationSigner; attestationIntervalMs?: number } = {},
  ) {
    super(db, options, owner);
    this.lookahead = new CallLookahead(db);
    const signing =
      signer && !db.readOnly
        ? new StoreSigning(db, signer, {
            flush: () => this.queue.flush(),
            now: this.now,
            intervalMs: attestationIntervalMs,
            owner,
          })
        : undefined;
    this.signing = signing;
    this.queue = storeEventQueue(db, signing, buffer, this.lookahead);
  }

  async createSession(input: NewSession): Promise<Session> {
    this.assertWritable();
    const session = await insertNewSession(this.db, this.signing, input, this.now());
    // The run that made it queues its first batch next: no look-up to learn that it exists.
    this.knownSessions.add(session.id);
    return session;
  }

  async startSession(input: NewSession, start: SessionStart): Promise<StartedSession> {
    this.assertWritable();
    const started = await startNewSession(this.db, this.signing, input, start, this.now());
    if (started.status === "started") this.knownSessions.add(started.session.id);
    return started;
  }

  async endRun(sessionId: string, { status, messages = [], releaseLease }: RunEnd): Promise<void> {
    this.assertWritable();
    checkSessionPatch({ status });
    const [texts, update] = [messageTexts(messages), { patch: { status }, metadata: null }];
    await this.withQueue(
      (items) => this.saveTranscript(sessionId, texts, false, update, items, { releaseLease }),
      sessionId,
    );
  }

  async updateSession(id: string, patch: SessionPatch): Promise<Session> {
    this.assertWritable();
    checkSessionPatch(patch);
    const metadata =
      patch.metadata === undefined
        ? null
        : jsonText(patch.metadata, "invalid_session", "The metadata");
    // After what is queued: a queued batch may carry a change to the same session.
    await this.flush();
    const now = this.now();
    // Signed in the update's own commit: acknowledged only once an attestation covers it, so no
    // crash leaves the row changed and unsigned (ADR 0064).
    const updated = this.signing
      ? await this.signing.inCommit((sign) => this.db.updateSession(id, patch, metadata, now, sign))
      : await this.db.updateSession(id, patch, metadata, now);
    if (!updated) throw new DocketError("unknown_session", `There is no session ${id}.`);
    return updated.session;
  }

  async appendMessage(sessionId: string, message: NewMessage): Promise<TranscriptMessage> {
    this.assertWritable();
    const texts = messageTexts([message]);
    // After any queued batch, so that messages keep their order.
    const [saved] = await this.withQueue(
      (items) => this.saveTranscript(sessionId, texts, false, undefined, items),
      sessionId,
    );
    return saved as TranscriptMessage;
  }

  async saveBatch(
    sessionId: string,
    assistant: NewMessage,
    results: readonly NewMessage[],
    options: SaveBatchOptions = {},
  ): Promise<TranscriptMessage[]> {
    this.assertWritable();
    const { texts, update } = batchTexts(assistant, results, options);
    return this.withQueue(
      (items) => this.saveTranscript(sessionId, texts, true, update, items),
      sessionId,
    );
  }

  /**
   * Write messages (and the queued items before them): signed in the same commit when the write
   * patches a session's row (ADR 0067), else left to the cadence.
   */
  private async saveTranscript(
    sessionId: string,
    texts: readonly MessageText[],
    batch: boolean,
    update: SessionUpdate | undefined,
    items: readonly PendingWrite[],
    end?: { readonly releaseLease: string | undefined },
  ): Promise<TranscriptMessage[]> {
    const save = (sign: BatchAttestation | undefined) =>
      end && update
        ? this.db.endRun(sessionId, texts, this.now(), update, end.releaseLease, items, sign)
        : this.db.saveMessages(sessionId, texts, batch, this.now(), update, items, sign);
    const saved = this.signing
      ? await this.signing.inTranscriptCommit(items, sessionId, update, save)
      : await save(undefined);
    return saved.messages;
  }

  /**
   * Run a transcript write after everything queued: in the same transaction where the engine
   * can (SQLite), else after a flush.
   */
  private async withQueue<T>(
    write: (items: readonly PendingWrite[]) => T | Promise<T>,
    sessionId?: string,
  ): Promise<T> {
    const signing = this.signing;
    if (sessionId !== undefined && signing) {
      const inner = write;
      write = (items) => {
        signing.beforeMessages(items, sessionId);
        return inner(items);
      };
    }
    try {
      if (this.db.atomicWithMessages) return await this.queue.commitWith(write);
      await this.flush();
      return await write([]);
    } finally {
      // The end of a batch: sign what it wrote.
      signing?.batchEnded();
    }
  }

  async queueBatch(
    sessionId: string,
    assistant: NewMessage,
    results: readonly NewMessage[],
    options: SaveBatchOptions = {},
  ): Promise<void> {
    this.assertWritable();
    const { texts, update } = batchTexts(assistant, results, options);
    if (!this.db.atomicWithMessages) {
      await this.withQueue(
        () => this.saveTranscript(sessionId, texts, true, update, []),
        sessionId,
      );
      return;
    }
    // Checked now: a queued batch for a session that does not exist would fail every commit.
    if (!this.knownSessions.has(sessionId)) {
      if (!(await this.db.getSession(sessionId))) {
        throw new DocketError("unknown_session", `There is no session ${sessionId}.`);
      }
      this.knownSessions.add(sessionId);
    }
    await this.queue.add(
      { kind: "messages", sessionId, messages: texts, createdAt: this.now(), session: update },
      false,
    );
    // The end of a batch: its attestation follows its commit.
    this.signing?.note(sessionId);
    this.signing?.batchEnded();
  }

  emit(event: StoreEvent, options: EmitOptions = {}): Promise<void> {
    try {
      this.assertWritable();
      const item = prepareEvent(event, this.defaultSession);
      const durable =
        isIntent(item.event) ||
        (isTerminal(item.event) &&
          (options.defer !== true || item.event.type === "awaiting_approval"));
      return this.queue.add(item, durable);
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
    // Whatever comes after a flush (a reader, a direct write, the next batch) reads afresh.
    this.lookahead.clear();
    await this.queue.flush();
    // The end of a dispatch (the checkpoint flushes after each): what it wrote is signed within
    // the least gap, not only at the next interval.
    this.signing?.settled();
  }

  protected async flushForDuplicate(session: string, tool: string, key: string): Promise<void> {
    if (this.queue.mayHold(couldBeDuplicate(session, tool, key))) await this.flush();
  }

  async attest(): Promise<AuditAttestation[]> {
    this.assertOpen();
    await this.flush();
    return this.signing ? this.signing.now() : [];
  }

  /** @deprecated Call `attest()` (ADR 0065). */
  checkpoint(): ReturnType<Store["attest"]> {
    return this.attest(); // legacy-name: the store's signing method before ADR 0065
  }

  commitQueued(): Promise<void> {
    this.assertWritable();
    return this.queue.flush();
  }

  awaitsCommit(sessionId: string | undefined, callId: string): boolean {
    return this.queue.holdsResult(this.session(sessionId), storedText(callId));
  }

  async claimCall(
    sessionId: string | undefined,
    callId: string,
    options: ClaimOptions = {},
  ): Promise<ClaimResult> {
    this.assertWritable();
    const session = this.session(sessionId);
    const id = storedText(callId);
    const tool = options.tool === undefined ? undefined : storedText(options.tool);
    if (options.defer === true && options.writes !== true) {
      // A queued claim, result or closing event of the same id: commit it and claim for real.
      if (!this.queue.holds(session, id)) {
        const row = await this.lookahead.row(session, id);
        if (row && !isClaimable(row)) return seenClaim(row);
        await this.queue.add(pendingClaim(session, id, { ...options, tool }, this.now()), false);
        return { status: "claimed" };
      }
    }
    const engineClaim = this.db.claimAndStart?.bind(this.db);
    if (options.writes === true && engineClaim) {
      return this.claimAndStart(engineClaim, session, id, { ...options, tool }, options.start);
    }
    await this.flush();
    return this.db.claimCall(session, id, { ...options, start: undefined, tool });
  }

  /** A write's claim (and its intent, if given) in one commit, with everything queued before. */
  private async claimAndStart(
    engineClaim: NonNullable<StoreEngine["claimAndStart"]>,
    sessionId: string,
    callId: string,
    options: ClaimOptions,
    start: StoreEvent | undefined,
  ): Promise<ClaimResult> {
    const intent = claimIntent(start, sessionId, callId, this.defaultSession);
    const claim = pendingClaim(sessionId, callId, { ...options, writes: true }, this.now(), true);
    // Its row is being written: what was read ahead of it is stale.
    this.lookahead.forget(sessionId, callId);
    try {
      return await this.withQueue((items) => engineClaim(items, claim, intent), sessionId);
    } catch (error) {
      if (intent !== undefined) this.queue.intentFailed(intent);
      throw error;
    }
  }

  async prefetchCalls(sessionId: string | undefined, callIds: readonly string[]): Promise<void> {
    this.assertOpen();
    const ids = callIds.map((id) => storedText(String(id)));
    await this.lookahead.prefetch(this.session(sessionId), ids);
  }

  async recordCallResult(
    sessionId: string | undefined,
    callId: string,
    result: ToolResult,
    dedupeKey?: string,
    options: { readonly defer?: boolean } = {},
  ): Promise<void> {
    this.assertWritable();
    const resultText = resultJson(result) ?? jsonText(result, "invalid_call_result", "The result");
    const item: PendingResult = {
      kind: "result",
      sessionId: this.session(sessionId),
      callId: storedText(callId),
      result,
      resultText,
      resultEcho: resultEcho(result),
      dedupeKey: dedupeKey === undefined ? undefined : storedText(dedupeKey),
      at: this.now(),
    };
    await this.queue.add(item, options.defer !== true);
  }

  async markInterrupted({
    sessionId,
    all = false,
  }: MarkInterruptedOptions = {}): Promise<CallRecord[]> {
    this.assertWritable();
    await this.flush();
    const marked = await interruptOpenCalls(this.db, (events) => this.emitMany(events), {
      owner: this.owner,
      at: this.now(),
      sessionId,
      all,
    });
    // What dead processes left unsigned is signed now, marked as recovered (at open: a resume
    // signs its own session with its next batch).
    if (sessionId === undefined) await this.signing?.recover();
    return marked;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.db.readOnly) await this.queue.flush();
      // The last attestation: whatever this store wrote is signed before it lets go.
      await this.signing?.close();
    } finally {
      this.closed = true;
      releaseOwner(this.owner);
      await this.db.close();
    }
  }
}
