import type pg from "pg";
import { DocketError } from "../../errors/docket-error.js";
import type { ApprovalPosition } from "../approval-cursor.js";
import type {
  Approval,
  ApprovalDecision,
  ApprovalFilter,
  DecideResult,
  NewApproval,
} from "../approval-record.js";
import type { ApprovalWatch } from "../approval-watch.js";
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
import type { BatchAttestation, SavedMessages } from "../patched-sessions.js";
import type { PendingCallWrite, PendingWrite } from "../pending-write.js";
import type { RunWritesEngine } from "../run-writes-engine.js";
import type { Session, SessionFilter, SessionPatch } from "../session-record.js";
import type { MessageText, SessionUpdate, StoreEngine } from "../store-engine.js";
import { type Row, toCallRow, toMessage } from "../store-rows.js";
import type { StoreTarget } from "../store-url.js";
import type { TranscriptMessage } from "../transcript-message.js";
import { insertMessages } from "./insert-messages.js";
import { openPostgresPool } from "./open-postgres-pool.js";
import { PostgresApprovals } from "./postgres-approvals.js";
import { PostgresAttestations } from "./postgres-attestations.js";
import { PostgresAuditLog } from "./postgres-audit-log.js";
import { PostgresCalls } from "./postgres-calls.js";
import { PostgresLeases } from "./postgres-leases.js";
import { PostgresOwedDeliveries } from "./postgres-owed-deliveries.js";
import { postgresRecordedDecision } from "./postgres-recorded-decision.js";
import { PostgresRunWrites } from "./postgres-run-writes.js";
import { PostgresSessions } from "./postgres-sessions.js";
import { transaction } from "./postgres-transaction.js";
import { APPROVAL_CHANNEL, PostgresWakeups } from "./postgres-wakeups.js";

type PostgresTarget = Extract<StoreTarget, { engine: "postgres" }>;

/**
 * The shared engine: a pg pool, for many processes or machines on one database. Appends are
 * serialised per session with `pg_advisory_xact_lock(hashtext(session_id))` inside the append
 * transaction, so concurrent writers never fork a chain. A commit is durable when it returns
 * (PostgreSQL's `synchronous_commit`, on by default).
 *
 * @example
 * ```ts
 * import { openStore } from "../open-store.js";
 * const store = await openStore("postgres://docket@db.internal/docket?schema=agent");
 * ```
 */
export class PostgresEngine implements StoreEngine {
  readonly engine = "postgres";
  readonly atomicWithMessages = false;
  private readonly calls: PostgresCalls;
  private readonly audit: PostgresAuditLog;
  private readonly approvals: PostgresApprovals;
  readonly leases: PostgresLeases;
  private readonly wakeups: PostgresWakeups;
  private readonly attestations: PostgresAttestations;
  readonly deliveries: PostgresOwedDeliveries;
  private readonly sessions: PostgresSessions;
  readonly startSession: RunWritesEngine["startSession"];
  readonly endRun: RunWritesEngine["endRun"];
  readonly decideApprovalRecorded: ReturnType<typeof postgresRecordedDecision>;

  private constructor(
    private readonly pool: pg.Pool,
    readonly readOnly: boolean,
    owner: string,
    now: () => number,
    target: PostgresTarget,
  ) {
    this.wakeups = new PostgresWakeups(target.connectionString, target);
    this.calls = new PostgresCalls(pool, owner, now);
    this.audit = new PostgresAuditLog(pool, owner);
    this.approvals = new PostgresApprovals(pool, now);
    this.leases = new PostgresLeases(pool);
    this.deliveries = new PostgresOwedDeliveries(pool);
    this.attestations = new PostgresAttestations(pool, owner, this.deliveries);
    this.sessions = new PostgresSessions(pool, this.attestations);
    const runs = new PostgresRunWrites(pool, this.attestations);
    this.startSession = runs.startSession.bind(runs);
    this.endRun = runs.endRun.bind(runs);
    this.decideApprovalRecorded = postgresRecordedDecision({
      pool,
      approvals: this.approvals,
      audit: this.audit,
      notify: (id) => this.notifyDecided(id),
      now,
    });
  }

  /**
   * Connect (and migrate).
   *
   * @example
   * ```ts
   * import { parseStoreUrl } from "../store-url.js";
   * const location = "postgres://db/docket";
   * const target = parseStoreUrl(location);
   * const owner = "host/1/uuid";
   * if (target.engine === "postgres") await PostgresEngine.open(target, { readOnly: false, location }, owner, Date.now);
   * ```
   */
  static async open(
    target: PostgresTarget,
    options: { readOnly: boolean; location: string },
    owner: string,
    now: () => number,
  ): Promise<PostgresEngine> {
    const pool = await openPostgresPool(target, options);
    const engine = new PostgresEngine(pool, options.readOnly, owner, now, target);
    if (!options.readOnly) {
      try {
        await engine.audit.register();
      } catch (error) {
        await pool.end().catch(() => undefined);
        throw error;
      }
    }
    return engine;
  }

  insertSession(
    session: Session,
    metadata: string | null,
    sign?: RowAttestation,
  ): Promise<AuditAttestation[]> {
    return this.sessions.insert(session, metadata, sign);
  }

  getSession(id: string): Promise<Session | undefined> {
    return this.sessions.get(id);
  }

  listSessions(filter: SessionFilter): Promise<Session[]> {
    return this.sessions.list(filter);
  }

  updateSession(
    id: string,
    patch: SessionPatch,
    metadata: string | null,
    now: number,
    sign?: RowAttestation,
  ): Promise<SessionUpdated | undefined> {
    return this.sessions.update(id, patch, metadata, now, sign);
  }

  async saveMessages(
    sessionId: string,
    messages: readonly MessageText[],
    batch: boolean,
    createdAt: number,
    update?: SessionUpdate,
    _items?: readonly PendingWrite[],
    sign?: BatchAttestation,
  ): Promise<SavedMessages> {
    const insert = (client: pg.PoolClient) =>
      insertMessages(client, sessionId, messages, batch, createdAt, update);
    if (!sign) return { messages: await transaction(this.pool, insert), attestations: [] };
    // The batch and its sessions' attestations in one transaction, under their locks (ADR 0067).
    let saved: TranscriptMessage[] = [];
    const attestations = await this.attestations.writeWith(
      sign.sessions,
      sign.signer,
      sign.at,
      async (client) => {
        saved = await insert(client);
      },
    );
    return { messages: saved, attestations };
  }

  async loadTranscript(sessionId: string): Promise<TranscriptMessage[]> {
    const result = await this.pool.query(
      "SELECT * FROM messages WHERE session_id = $1 ORDER BY seq",
      [sessionId],
    );
    return (result.rows as Row[]).map(toMessage);
  }

  /**
   * Write queued audit items in one transaction. Transcript batches are never queued here
   * (`atomicWithMessages` is false: the store saves them at once, after a flush), because the
   * audit append takes advisory locks over a two-round-trip protocol of its own and could not
   * share their transaction: a failure between the two would leave the queue unable to tell
   * what was committed.
   */
  async appendEvents(items: readonly PendingWrite[], key?: number): Promise<void> {
    const calls: PendingCallWrite[] = [];
    for (const item of items) {
      if (item.kind === "messages") {
        throw new DocketError(
          "invalid_queue",
          "A transcript batch cannot be queued on PostgreSQL.",
        );
      }
      calls.push(item);
    }
    await this.audit.append(calls, key);
  }

  /** Whether the append that carried `key` was committed (asked after it failed). */
  committed(key: number): Promise<boolean> {
    return this.audit.committed(key);
  }

  listEvents(filter: EventFilter): Promise<AuditRecord[]> {
    return this.audit.list(filter);
  }

  verifyChain(sessionId: string | undefined): Promise<ChainVerification> {
    return this.audit.verify(sessionId);
  }

  storeId(): Promise<string | undefined> {
    return this.attestations.storeId();
  }

  writeAttestations(
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
    options: SignOptions = {},
  ): Promise<AuditAttestation[]> {
    return this.attestations.write(sessions, signer, at, options);
  }

  unsignedTails(): Promise<UnsignedTail[]> {
    return this.attestations.unsignedTails();
  }

  listAttestations(sessionId: string | undefined): Promise<AuditAttestation[]> {
    return this.attestations.list(sessionId);
  }

  listChainSessions(sessionId: string | undefined): Promise<string[]> {
    return this.attestations.chainSessions(sessionId);
  }

  listChainHeads(sessionId: string | undefined): Promise<ChainHeadRecord[]> {
    return this.attestations.heads(sessionId);
  }

  listChainRows(sessionId: string, afterSeq: number, limit: number): Promise<ChainRow[]> {
    return this.attestations.chainRows(sessionId, afterSeq, limit);
  }

  listMessageRows(sessionId: string, afterSeq: number): Promise<MessageRow[]> {
    return this.attestations.messages(sessionId, afterSeq);
  }

  claimCall(sessionId: string, callId: string, options: ClaimOptions): Promise<ClaimResult> {
    return this.calls.claim(sessionId, callId, options);
  }

  loadCall(sessionId: string, callId: string): Promise<CallRow | undefined> {
    return this.calls.load(sessionId, callId);
  }

  async loadCalls(sessionId: string, callIds: readonly string[]): Promise<CallRow[]> {
    const result = await this.pool.query(
      "SELECT * FROM calls WHERE session_id = $1 AND call_id = ANY($2::text[])",
      [sessionId, callIds],
    );
    return (result.rows as Row[]).map(toCallRow);
  }

  callOutcome(sessionId: string, callId: string): Promise<CallOutcome | undefined> {
    return this.calls.outcome(sessionId, callId);
  }

  findDuplicate(
    sessionId: string,
    tool: string,
    dedupeKey: string,
    sinceMs: number,
  ): Promise<DuplicateCall | undefined> {
    return this.calls.findDuplicate(sessionId, tool, dedupeKey, sinceMs);
  }

  listCalls(filter: CallFilter): Promise<CallRecord[]> {
    return this.calls.list(filter);
  }

  countCalls(sessionIds: readonly string[]): Promise<Map<string, number>> {
    return this.calls.count(sessionIds);
  }

  openCalls(sessionId: string | undefined): Promise<CallRecord[]> {
    return this.calls.open(sessionId);
  }

  releaseClaim(call: CallRecord): Promise<void> {
    return this.calls.release(call);
  }

  createApproval(input: NewApproval): Promise<Approval> {
    return this.approvals.create(input);
  }

  getApproval(id: string): Promise<Approval | undefined> {
    return this.approvals.get(id);
  }

  pageApprovals(
    filter: ApprovalFilter,
    after: ApprovalPosition | undefined,
    limit: number,
  ): Promise<{ rows: Approval[]; total: number }> {
    return this.approvals.page(filter, after, limit);
  }

  listApprovals(filter: ApprovalFilter): Promise<Approval[]> {
    return this.approvals.list(filter);
  }

  async decideApproval(id: string, decision: ApprovalDecision): Promise<DecideResult> {
    const result = await this.approvals.decide(id, decision);
    if (result.status === "decided") await this.notifyDecided(id);
    return result;
  }

  /**
   * After a decision committed: waiting runs on any machine wake now, not at their next poll. A
   * notification lost (the connection dropped) costs a poll interval, never the decision.
   */
  private async notifyDecided(id: string): Promise<void> {
    await this.pool
      .query("SELECT pg_notify($1, $2)", [APPROVAL_CHANNEL, id])
      .catch(() => undefined);
  }

  watchApproval(id: string): Promise<ApprovalWatch> {
    return this.wakeups.watch(id);
  }

  expireApprovals(now: number): Promise<Approval[]> {
    return this.approvals.expire(now);
  }

  async schemaVersion(): Promise<number> {
    const result = await this.pool.query("SELECT version FROM schema_version WHERE id = 1");
    return Number(result.rows[0]?.version ?? 0);
  }

  async close(): Promise<void> {
    await this.wakeups.close();
    // A database that is gone keeps the row (a few bytes); closing still ends the pool.
    if (!this.readOnly) await this.audit.unregister().catch(() => undefined);
    await this.pool.end();
  }
}
