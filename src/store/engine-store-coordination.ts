import { DocketError } from "../errors/docket-error.js";
import { decodeApprovalCursor, encodeApprovalCursor, pageSize } from "./approval-cursor.js";
import { countParams } from "./approval-query.js";
import type {
  Approval,
  ApprovalFilter,
  ApprovalPage,
  ApprovalPageFilter,
  NewApproval,
} from "./approval-record.js";
import { type ApprovalWatch, pollingWatch } from "./approval-watch.js";
import { isOwnerGone } from "./call-owner.js";
import type { EngineOptions } from "./engine-options.js";
import { EngineStoreReads } from "./engine-store-reads.js";
import { storedText } from "./pending-event.js";
import type { LeaseResult, SessionLease } from "./session-lease.js";
import type { StoreEngine } from "./store-engine.js";

/**
 * Leases and approvals of the Store both engines share: who runs a session (one runner at a
 * time, a dead holder taken over at once) and who decides a call. Between the reads
 * (`EngineStoreReads`) and the write path (`EngineStore`).
 *
 * @example
 * ```ts
 * import type { EngineStoreCoordination } from "./engine-store-coordination.js";
 * declare const store: EngineStoreCoordination;
 * await store.acquireLease("ses_1");
 * ```
 */
export abstract class EngineStoreCoordination extends EngineStoreReads {
  protected readonly now: () => number;

  constructor(db: StoreEngine, options: EngineOptions, owner: string) {
    super(db, options, owner);
    this.now = options.clock;
  }

  async acquireLease(
    sessionId: string,
    { owner = this.owner, ttlMs = DEFAULT_LEASE_TTL_MS }: { owner?: string; ttlMs?: number } = {},
  ): Promise<LeaseResult> {
    this.assertWritable();
    checkTtl(ttlMs);
    const session = storedText(sessionId);
    const taken = await this.db.leases.acquire(session, owner, ttlMs);
    // A holder that was a process of this host and is gone (SIGKILL, a crash) need not be waited
    // out: like its calls at recovery, its lease is taken over at once. The owner's process part
    // is before the run's `#` suffix.
    if (taken.status === "held" && isOwnerGone(taken.lease.owner.split("#")[0])) {
      const lease = await this.db.leases.takeOver(session, taken.lease.owner, owner, ttlMs);
      if (lease) return { status: "acquired", lease };
      return this.db.leases.acquire(session, owner, ttlMs);
    }
    return taken;
  }

  async renewLease(sessionId: string, owner: string, ttlMs: number): Promise<boolean> {
    this.assertWritable();
    checkTtl(ttlMs);
    return this.db.leases.renew(storedText(sessionId), owner, ttlMs);
  }

  async releaseLease(sessionId: string, owner: string): Promise<void> {
    this.assertWritable();
    await this.db.leases.release(storedText(sessionId), owner);
  }

  async getLease(sessionId: string): Promise<SessionLease | undefined> {
    this.assertOpen();
    return this.db.leases.get(storedText(sessionId));
  }

  async createApproval(input: NewApproval): Promise<Approval> {
    this.assertWritable();
    // Another process acts on the row the moment it exists: the chain's ask (buffered, like
    // every event but an intent) is committed first, so no decision can precede it in the chain.
    await this.flush();
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

  async pageApprovals(filter: ApprovalPageFilter = {}): Promise<ApprovalPage> {
    this.assertOpen();
    const limit = pageSize(filter.limit);
    const after = filter.cursor === undefined ? undefined : decodeApprovalCursor(filter.cursor);
    countParams(filter.countUpTo); // refuses a count limit that is not one, on every page
    const { limit: _limit, cursor: _cursor, ...where } = filter;
    const { rows, total } = await this.db.pageApprovals(where, after, limit);
    const approvals = rows.slice(0, limit);
    const last = approvals.at(-1);
    return rows.length > limit && last
      ? { approvals, total, next: encodeApprovalCursor(last) }
      : { approvals, total };
  }

  async watchApproval(id: string): Promise<ApprovalWatch> {
    this.assertOpen();
    return this.db.watchApproval ? this.db.watchApproval(id) : pollingWatch();
  }

  async expireApprovals(now: number = this.now()): Promise<Approval[]> {
    this.assertWritable();
    await this.flush();
    return this.db.expireApprovals(now);
  }
}

/** How long a lease lasts unless renewed: the heartbeat renews it every third of this. */
const DEFAULT_LEASE_TTL_MS = 30_000;

/**
 * A lease's ttl must be a whole number of ms from 1 ms to a day, else DocketError("invalid_lease").
 *
 * @example
 * ```ts
 * checkTtl(30_000); // fine; checkTtl(0) throws
 * ```
 */
export function checkTtl(ttlMs: number): void {
  if (!Number.isInteger(ttlMs) || ttlMs < 1 || ttlMs > 86_400_000) {
    throw new DocketError(
      "invalid_lease",
      `A lease's ttlMs must be a whole number of ms from 1 to 86400000, not ${ttlMs}.`,
    );
  }
}
