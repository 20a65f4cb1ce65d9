import { DocketError } from "../errors/docket-error.js";
import type { AttestationSigner } from "./audit-attestation.js";
import { batchTexts, sessionUpdate } from "./batch-texts.js";
import { CallLookahead } from "./call-lookahead.js";
import type { EngineOptions } from "./engine-options.js";
import { EngineStoreCoordination } from "./engine-store-coordination.js";
import type { EventQueue } from "./event-queue.js";
import { insertNewSession, startNewSession } from "./new-session-write.js";
import type { BatchAttestation } from "./patched-sessions.js";
import type { MessageText, PendingWrite, SessionUpdate } from "./pending-write.js";
import type { RunEnd, SessionStart, StartedSession } from "./run-writes.js";
import type { NewSession, Session, SessionPatch } from "./session-record.js";
import type { SaveBatchOptions } from "./store.js";
import type { StoreEngine } from "./store-engine.js";
import { storeEventQueue } from "./store-event-queue.js";
import { checkSessionPatch, messageTexts } from "./store-input.js";
import { StoreSigning } from "./store-signing.js";
import type { NewMessage, TranscriptMessage } from "./transcript-message.js";

/**
 * The sessions and transcripts half of `EngineStore`'s write path, and what both halves share:
 * the event queue every write goes through, in order, and the signing that covers each commit.
 * A session row or transcript change is checked here, queued or committed after what is
 * queued, and signed in its own commit (ADRs 0064 and 0067). The calls and events half is
 * `EngineStore`.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store; // an EngineStore
 * await store.queueSessionUpdate("ses_1", { metadata: { note: "rides with the next commit" } });
 * await store.flush(); // committed and signed now
 * ```
 */
export abstract class EngineStoreSessions extends EngineStoreCoordination {
  protected readonly queue: EventQueue;
  protected readonly lookahead: CallLookahead;
  /** Sessions known to exist (sessions are never deleted). */
  private readonly knownSessions = new Set<string>();
  /** Signing, when the store has a signer (never read-only). */
  protected readonly signing: StoreSigning | undefined;
  /** Sessions whose update may be queued (`queueSessionUpdate`): kept before a handler runs. */
  private readonly patchQueued = new Set<string>();

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
    const { metadata } = sessionUpdate(patch);
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
  protected async withQueue<T>(
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
    await this.queueMessages(sessionId, texts, update);
    // The end of a batch: its attestation follows its commit.
    this.signing?.batchEnded();
  }

  async queueSessionUpdate(id: string, patch: SessionPatch): Promise<void> {
    this.assertWritable();
    const update = sessionUpdate(patch);
    if (this.db.atomicWithMessages) await this.knownSession(id);
    // Queued only when that starts no write: a write that failed would reject this call and
    // still keep the update queued, to be applied later. Otherwise it is written now, as
    // `updateSession` does (PostgreSQL always: its queue carries no transcript writes).
    if (!this.db.atomicWithMessages || !this.queue.buffersNext) {
      await this.updateSession(id, patch);
      return;
    }
    // A batch of no messages: its session patch is applied where it stands in the queue.
    const item = { kind: "messages", sessionId: id, messages: [], createdAt: this.now() } as const;
    await this.queue.add({ ...item, session: update }, false);
    this.signing?.note(id);
    this.patchQueued.add(id);
  }

  /**
   * Before a call of `sessionId` whose claim commits nothing (a read's deferred claim) goes on
   * to its handler: that session's queued update is committed first, and its signature copied
   * to the digest log, so that no handler runs while the update waits. A write's claim commits
   * it with the claim.
   */
  protected async commitQueuedPatch(sessionId: string): Promise<void> {
    const update = (item: PendingWrite) =>
      item.kind === "messages" && item.session !== undefined && item.sessionId === sessionId;
    // Again while one is held: a commit in flight, or one that failed and queued it again.
    while (this.queue.mayHold(update)) await this.queue.flush();
    await this.patchCopied(sessionId);
  }

  /** True when `sessionId` may have an update queued: checked before any await, on a read's path. */
  protected hasQueuedPatch(sessionId: string): boolean {
    return this.patchQueued.has(sessionId);
  }

  /**
   * After a commit that kept everything queued (a write's claim): `sessionId`'s queued update,
   * if it had one, is signed in the store; its signature must be in the digest log as well
   * before a handler runs, as when the update had a commit of its own (`updateSession`).
   */
  protected async patchCopied(sessionId: string): Promise<void> {
    if (!this.patchQueued.has(sessionId)) return;
    await this.signing?.copied(sessionId);
    this.patchQueued.delete(sessionId);
  }

  private async queueMessages(
    sessionId: string,
    messages: readonly MessageText[],
    session: SessionUpdate | undefined,
  ): Promise<void> {
    await this.knownSession(sessionId);
    await this.queue.add(
      { kind: "messages", sessionId, messages, createdAt: this.now(), session },
      false,
    );
    this.signing?.note(sessionId);
  }

  /** Checked before queueing: a queued write for a session that does not exist fails every commit. */
  private async knownSession(sessionId: string): Promise<void> {
    if (this.knownSessions.has(sessionId)) return;
    if (!(await this.db.getSession(sessionId))) {
      throw new DocketError("unknown_session", `There is no session ${sessionId}.`);
    }
    this.knownSessions.add(sessionId);
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
}
