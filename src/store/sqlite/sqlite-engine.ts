import type { ApprovalPosition } from "../approval-cursor.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "../approval-record.js";
import type {
  MessageRow,
  RowAttestation,
  SessionUpdated,
  SignOptions,
  UnsignedTail,
} from "../attestation-plan.js";
import type { AttestationSigner, AuditAttestation } from "../audit-attestation.js";
import type { ChainRow } from "../audit-chain.js";
import type {
  AuditRecord,
  ChainHeadRecord,
  ChainVerification,
  EventFilter,
} from "../audit-record.js";
import type {
  CallFilter,
  CallOutcome,
  CallRecord,
  ClaimOptions,
  ClaimResult,
  DuplicateCall,
} from "../call-record.js";
import type { CallRow } from "../call-state.js";
import { CallTaken } from "../call-taken.js";
import type { BatchAttestation, SavedMessages } from "../patched-sessions.js";
import type { PendingEvent } from "../pending-event.js";
import type { PendingClaim, PendingWrite } from "../pending-write.js";
import type { RunWritesEngine } from "../run-writes-engine.js";
import type { Session, SessionFilter, SessionPatch } from "../session-record.js";
import type { MessageText, SessionUpdate, StoreEngine } from "../store-engine.js";
import { seenClaim } from "../store-rows.js";
import type { StoreTarget } from "../store-url.js";
import type { TranscriptMessage } from "../transcript-message.js";
import type { ClaimCommit } from "../write-path-engine.js";
import { FileMarks } from "./file-mark.js";
import { openSqliteDatabase } from "./open-sqlite-database.js";
import { SqliteApprovals } from "./sqlite-approvals.js";
import { SqliteAttestations } from "./sqlite-attestations.js";
import { SqliteAuditLog } from "./sqlite-audit-log.js";
import { SqliteCalls } from "./sqlite-calls.js";
import type { Database, Statement, Transaction } from "./sqlite-driver.js";
import { SqliteFileGuard } from "./sqlite-file-guard.js";
import { SqliteLeases } from "./sqlite-leases.js";
import { SqliteMessages } from "./sqlite-messages.js";
import { SqliteOwedDeliveries } from "./sqlite-owed-deliveries.js";
import { sqliteRecordedDecision } from "./sqlite-recorded-decision.js";
import { SqliteRunWrites, savedMessages } from "./sqlite-run-writes.js";
import { SqliteSessions } from "./sqlite-sessions.js";
import { statementCache } from "./statement-cache.js";
import { WalCheckpointer } from "./wal-checkpointer.js";
import { writeQueued } from "./write-queued.js";

type SqliteTarget = Extract<StoreTarget, { engine: "sqlite" }>;

/**
 * The embedded engine: one node:sqlite connection to a WAL file, prepared statements, and
 * transactions (`BEGIN IMMEDIATE` for every write, so several processes can
 * share the file under the busy timeout without a lost update or a forked chain).
 *
 * Durability: `synchronous=NORMAL` (the default) in WAL mode syncs the log only at checkpoints.
 * A committed transaction survives the process being killed (SIGKILL, a crash), but the last
 * transactions before a power loss or OS crash may be lost. `?synchronous=FULL` syncs the log
 * on every commit, so an intent survives power loss too, at a cost in throughput.
 *
 * node:sqlite is synchronous: a commit blocks the event loop for its duration (tens of µs).
 *
 * @example
 * ```ts
 * import { openStore } from "../open-store.js";
 * const store = await openStore("sqlite:.docket/docket.db?synchronous=FULL");
 * ```
 */
export class SqliteEngine implements StoreEngine {
  readonly engine = "sqlite";
  readonly atomicWithMessages = true;
  readonly readOnly: boolean;
  private readonly calls: SqliteCalls;
  private readonly audit: SqliteAuditLog;
  private readonly approvals: SqliteApprovals;
  readonly leases: SqliteLeases;
  private readonly attestations: SqliteAttestations;
  readonly deliveries: SqliteOwedDeliveries;
  private readonly sessions: SqliteSessions;
  private readonly messages: SqliteMessages;
  private readonly sql: (source: string) => Statement;
  /** Queued items in one transaction, with the given sessions signed in it (ADR 0067). */
  private readonly appendQueued: Transaction<
    (items: readonly PendingWrite[], sign?: BatchAttestation) => AuditAttestation[]
  >;
  readonly startSession: RunWritesEngine["startSession"];
  readonly decideApprovalRecorded: ReturnType<typeof sqliteRecordedDecision>;
  readonly endRun: RunWritesEngine["endRun"];
  // The signed trail's reads, as its table keeps them.
  readonly unsignedTails: () => UnsignedTail[];
  readonly listAttestations: (sessionId: string | undefined) => AuditAttestation[];
  readonly listChainSessions: (sessionId: string | undefined) => string[];
  readonly listChainHeads: (sessionId: string | undefined) => ChainHeadRecord[];
  readonly listChainRows: (sessionId: string, afterSeq: number, limit: number) => ChainRow[];
  readonly listMessageRows: (sessionId: string, afterSeq: number) => MessageRow[];

  private constructor(
    private readonly db: Database,
    owner: string,
    now: () => number,
    private readonly checkpointer: WalCheckpointer | undefined,
    private readonly file: SqliteFileGuard | undefined,
  ) {
    this.sql = statementCache(db);
    this.readOnly = db.readonly;
    // One mark reader: the version is read once per transaction, whoever asks first.
    const marks = new FileMarks(db);
    this.calls = new SqliteCalls(db, owner, now, marks);
    this.audit = new SqliteAuditLog(db, this.calls, owner, marks);
    this.approvals = new SqliteApprovals(db, now);
    this.leases = new SqliteLeases(db, now);
    this.deliveries = new SqliteOwedDeliveries(db);
    this.attestations = new SqliteAttestations(db, owner, this.deliveries);
    this.sessions = new SqliteSessions(db, this.attestations);
    this.messages = new SqliteMessages(db, this.sessions, marks);
    this.appendQueued = db.transaction(
      (items: readonly PendingWrite[], sign?: BatchAttestation): AuditAttestation[] => {
        this.writeQueued(items);
        return sign ? this.attestations.writeIn(sign.sessions, sign.signer, sign.at) : [];
      },
    );
    const tables = {
      ...{ db, sessions: this.sessions, leases: this.leases, messages: this.messages },
      ...{ attestations: this.attestations, approvals: this.approvals },
      ...{ afterCommit: () => this.afterCommit() },
      writeQueued: (items: readonly PendingWrite[]) => this.writeQueued(items),
    };
    const runs = new SqliteRunWrites(tables);
    this.startSession = runs.startSession.bind(runs);
    this.endRun = runs.endRun.bind(runs);
    this.decideApprovalRecorded = sqliteRecordedDecision(tables);
    const signed = this.attestations;
    this.unsignedTails = () => signed.unsignedTails();
    this.listAttestations = (sessionId) => signed.list(sessionId);
    this.listChainSessions = (sessionId) => signed.chainSessions(sessionId);
    this.listChainHeads = (sessionId) => signed.heads(sessionId);
    this.listChainRows = (...page) => signed.chainRows(...page);
    this.listMessageRows = (sessionId, afterSeq) => signed.messages(sessionId, afterSeq);
  }

  /**
   * Open (and migrate) the file.
   *
   * @example
   * ```ts
   * import { parseStoreUrl } from "../store-url.js";
   * const target = parseStoreUrl("sqlite:.docket/docket.db");
   * const owner = "host/1/uuid";
   * if (target.engine === "sqlite") SqliteEngine.open(target, { readOnly: false, mustExist: false }, owner, Date.now);
   * ```
   */
  static open(
    target: SqliteTarget,
    options: { readOnly: boolean; mustExist: boolean },
    owner: string,
    now: () => number,
  ): SqliteEngine {
    const db = openSqliteDatabase(target, options);
    const file = target.path !== ":memory:" && !db.readonly;
    return new SqliteEngine(
      db,
      owner,
      now,
      file ? new WalCheckpointer(db, target.path) : undefined,
      file ? new SqliteFileGuard(db, target.path) : undefined,
    );
  }

  /** After every commit: the file is still the one opened (else throw), WAL bookkeeping. */
  private afterCommit(): void {
    this.file?.check();
    this.checkpointer?.noteCommit();
  }

  insertSession(
    session: Session,
    metadata: string | null,
    sign?: RowAttestation,
  ): AuditAttestation[] {
    const written = this.sessions.insert(session, metadata, sign);
    this.file?.check();
    return written;
  }

  getSession(id: string): Session | undefined {
    return this.sessions.get(id);
  }

  listSessions(filter: SessionFilter): Session[] {
    return this.sessions.list(filter);
  }

  updateSession(
    id: string,
    patch: SessionPatch,
    metadata: string | null,
    now: number,
    sign?: RowAttestation,
  ): SessionUpdated | undefined {
    const updated = this.sessions.update(id, patch, metadata, now, sign);
    this.file?.check();
    return updated;
  }

  saveMessages(
    sessionId: string,
    messages: readonly MessageText[],
    batch: boolean,
    createdAt: number,
    session?: SessionUpdate,
    items: readonly PendingWrite[] = [],
    sign?: BatchAttestation,
  ): SavedMessages {
    const save = this.db.transaction((): SavedMessages => {
      this.writeQueued(items);
      const first = this.messages.insert(sessionId, messages, batch, createdAt, session);
      const attestations = sign
        ? this.attestations.writeIn(sign.sessions, sign.signer, sign.at)
        : [];
      return {
        messages: savedMessages(sessionId, messages, first, createdAt, batch),
        attestations,
      };
    });
    const saved = save.immediate();
    this.afterCommit();
    return saved;
  }

  /** Write queued items in order (inside a write transaction): audit runs and message batches. */
  private writeQueued(items: readonly PendingWrite[]): void {
    writeQueued(this.audit, this.messages, items);
  }

  loadTranscript(sessionId: string): TranscriptMessage[] {
    return this.messages.load(sessionId);
  }

  appendEvents(items: readonly PendingWrite[]): void {
    if (items.length === 0) return;
    this.appendQueued.immediate(items);
    this.afterCommit();
  }

  appendAndSign(
    items: readonly PendingWrite[],
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
  ): AuditAttestation[] {
    const written = this.appendQueued.immediate(items, { sessions, signer, at });
    this.afterCommit();
    return written;
  }

  listEvents(filter: EventFilter): AuditRecord[] {
    return this.audit.list(filter);
  }

  verifyChain(sessionId: string | undefined): ChainVerification {
    return this.audit.verify(sessionId);
  }

  storeId(): string | undefined {
    return this.attestations.storeId();
  }

  writeAttestations(
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
    options: SignOptions = {},
  ): AuditAttestation[] {
    const written = this.attestations.write(sessions, signer, at, options);
    this.afterCommit();
    return written;
  }

  claimAndStart(
    items: readonly PendingWrite[],
    claim: PendingClaim,
    intent: PendingEvent | undefined,
    sign?: BatchAttestation,
  ): ClaimCommit {
    let attestations: AuditAttestation[];
    try {
      const all = intent === undefined ? [...items, claim] : [...items, claim, intent];
      attestations = this.appendQueued.immediate(all, sign);
    } catch (error) {
      if (!(error instanceof CallTaken)) throw error;
      // Taken meanwhile: nothing of that commit happened; the rest goes without claim and intent.
      if (items.length === 0) return { result: seenClaim(error.row), attestations: [] };
      attestations = this.appendQueued.immediate(items, sign);
      this.afterCommit();
      return { result: seenClaim(error.row), attestations };
    }
    this.afterCommit();
    return {
      result: { status: "claimed", ...(intent === undefined ? {} : { started: true }) },
      attestations,
    };
  }

  claimCall(sessionId: string, callId: string, options: ClaimOptions): ClaimResult {
    const claimed = this.calls.claim(sessionId, callId, options);
    this.file?.check();
    return claimed;
  }

  loadCall(sessionId: string, callId: string): CallRow | undefined {
    return this.calls.load(sessionId, callId);
  }

  loadCalls(sessionId: string, callIds: readonly string[]): CallRow[] {
    return this.calls.readAhead(sessionId, callIds);
  }

  callOutcome(sessionId: string, callId: string): CallOutcome | undefined {
    return this.calls.outcome(sessionId, callId);
  }

  findDuplicate(
    sessionId: string,
    tool: string,
    dedupeKey: string,
    sinceMs: number,
  ): DuplicateCall | undefined {
    return this.calls.findDuplicate(sessionId, tool, dedupeKey, sinceMs);
  }

  listCalls(filter: CallFilter): CallRecord[] {
    return this.calls.list(filter);
  }

  countCalls(sessionIds: readonly string[]): Map<string, number> {
    return this.calls.count(sessionIds);
  }

  openCalls(sessionId: string | undefined): CallRecord[] {
    return this.calls.open(sessionId);
  }

  releaseClaim(call: CallRecord): void {
    this.calls.release(call);
  }

  createApproval(input: NewApproval): Approval {
    const approval = this.approvals.create(input);
    this.file?.check();
    return approval;
  }

  getApproval(id: string): Approval | undefined {
    return this.approvals.get(id);
  }

  pageApprovals(
    filter: ApprovalFilter,
    after: ApprovalPosition | undefined,
    limit: number,
  ): { rows: Approval[]; total: number } {
    return this.approvals.page(filter, after, limit);
  }

  listApprovals(filter: ApprovalFilter): Approval[] {
    return this.approvals.list(filter);
  }

  decideApproval(id: string, decision: ApprovalDecision): DecideResult {
    const result = this.approvals.decide(id, decision);
    this.file?.check();
    return result;
  }

  expireApprovals(now: number): Approval[] {
    return this.approvals.expire(now);
  }

  schemaVersion(): number {
    return Number(this.sql("SELECT version FROM schema_version WHERE id = 1").pluck().get());
  }

  async close(): Promise<void> {
    await this.checkpointer?.close();
    this.db.close();
  }
}
