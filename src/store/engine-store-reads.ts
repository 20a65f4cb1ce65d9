import { DocketError } from "../errors/docket-error.js";
import type { MessageRow } from "./attestation-plan.js";
import type { AuditAttestation } from "./audit-attestation.js";
import type { ChainRow } from "./audit-chain.js";
import type {
  AuditRecord,
  ChainHeadRecord,
  ChainVerification,
  EventFilter,
} from "./audit-record.js";
import type { CallFilter, CallOutcome, CallRecord, DuplicateCall } from "./call-record.js";
import type { EngineOptions } from "./engine-options.js";
import { storedText } from "./pending-event.js";
import type { Session, SessionFilter } from "./session-record.js";
import type { StoreEngine } from "./store-engine.js";
import type { TranscriptMessage } from "./transcript-message.js";

/**
 * The reading half of the Store both engines share (sessions, transcript, trail, attestations,
 * calls): each read first commits what the write path buffered (`flush`), so a reader sees what
 * was emitted. The write path is `EngineStore`, in one place; leases and approvals sit between
 * (`EngineStoreCoordination`).
 *
 * @example
 * ```ts
 * import type { EngineStoreReads } from "./engine-store-reads.js";
 * declare const store: EngineStoreReads;
 * await store.listCalls({ sessionId: "ses_1" }); // flushes, then reads
 * ```
 */
export abstract class EngineStoreReads {
  readonly engine: "sqlite" | "postgres";
  readonly location: string;
  readonly defaultSession: string;
  protected closed = false;

  constructor(
    protected readonly db: StoreEngine,
    options: EngineOptions,
    readonly owner: string,
  ) {
    this.engine = db.engine;
    this.location = options.location;
    this.defaultSession = options.defaultSession;
  }

  /** Commit what is buffered: every read starts with it. */
  abstract flush(): Promise<void>;

  /**
   * Before a look for an earlier success of this action: commit what is buffered when it could
   * be that success (a queued result of the key, a closing event of the tool), else nothing.
   */
  protected abstract flushForDuplicate(
    sessionId: string,
    tool: string,
    dedupeKey: string,
  ): Promise<void>;

  async getSession(id: string): Promise<Session | undefined> {
    this.assertOpen();
    await this.flush();
    return this.db.getSession(id);
  }

  async listSessions(filter: SessionFilter = {}): Promise<Session[]> {
    this.assertOpen();
    await this.flush();
    return this.db.listSessions(filter);
  }

  async loadTranscript(sessionId: string): Promise<TranscriptMessage[]> {
    this.assertOpen();
    await this.flush();
    return this.db.loadTranscript(sessionId);
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

  async storeId(): Promise<string | undefined> {
    this.assertOpen();
    return this.db.storeId();
  }

  async listAttestations(sessionId?: string): Promise<AuditAttestation[]> {
    await this.flush();
    return this.db.listAttestations(stored(sessionId));
  }

  async listOwedAttestations(sessionId?: string): Promise<string[]> {
    await this.flush();
    return this.db.deliveries.owedHashes(stored(sessionId));
  }

  async listChainSessions(sessionId?: string): Promise<string[]> {
    await this.flush();
    return this.db.listChainSessions(stored(sessionId));
  }

  async listChainHeads(sessionId?: string): Promise<ChainHeadRecord[]> {
    await this.flush();
    return this.db.listChainHeads(stored(sessionId));
  }

  async listChainRows(
    sessionId: string,
    { afterSeq = 0, limit = 1000 }: { readonly afterSeq?: number; readonly limit?: number } = {},
  ): Promise<ChainRow[]> {
    await this.flush();
    return this.db.listChainRows(storedText(sessionId), afterSeq, limit);
  }

  async listMessageRows(sessionId: string, afterSeq = 0): Promise<MessageRow[]> {
    await this.flush();
    return this.db.listMessageRows(storedText(sessionId), afterSeq);
  }

  async callOutcome(
    sessionId: string | undefined,
    callId: string,
  ): Promise<CallOutcome | undefined> {
    await this.flush();
    return this.db.callOutcome(this.session(sessionId), storedText(callId));
  }

  async findDuplicate(
    sessionId: string | undefined,
    tool: string,
    dedupeKey: string,
    sinceMs = 0,
  ): Promise<DuplicateCall | undefined> {
    this.assertOpen();
    const session = this.session(sessionId);
    const name = storedText(tool);
    const key = storedText(dedupeKey);
    await this.flushForDuplicate(session, name, key);
    return this.db.findDuplicate(session, name, key, sinceMs);
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

  async countCalls(sessionIds: readonly string[]): Promise<Map<string, number>> {
    await this.flush();
    const unique = [...new Set(sessionIds.map(storedText))];
    const counted = unique.length === 0 ? new Map() : await this.db.countCalls(unique);
    // Keyed by the ids as given: a caller looks its own ids up, whatever the store made of them.
    return new Map(sessionIds.map((id) => [id, counted.get(storedText(id)) ?? 0]));
  }

  async listInterrupted(sessionId?: string): Promise<CallRecord[]> {
    return this.listCalls({ sessionId, status: "interrupted" });
  }

  async schemaVersion(): Promise<number> {
    this.assertOpen();
    return this.db.schemaVersion();
  }

  protected session(sessionId: string | undefined): string {
    return storedText(sessionId ?? this.defaultSession);
  }

  protected assertOpen(): void {
    if (this.closed) throw new DocketError("store_closed", "The store is closed.");
  }

  protected assertWritable(): void {
    this.assertOpen();
    if (this.db.readOnly) {
      throw new DocketError(
        "store_read_only",
        `The store at ${this.location} was opened read-only.`,
      );
    }
  }
}

/**
 * An id or name as the store keeps it, or undefined.
 *
 * @example
 * ```ts
 * stored(undefined); // undefined
 * ```
 */
export function stored(text: string | undefined): string | undefined {
  return text === undefined ? undefined : storedText(text);
}
