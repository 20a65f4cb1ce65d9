import type { LeaseResult, SessionLease } from "./session-lease.js";

/**
 * Session leases: one runner per session across processes and machines (ADR 0011). Part of
 * `Store`; take this type where only leases are needed.
 *
 * @example
 * ```ts
 * async function runAlone(leases: LeaseStore, sessionId: string, work: () => Promise<void>) {
 *   const lease = await leases.acquireLease(sessionId, { ttlMs: 30_000 });
 *   if (lease.status !== "acquired") throw new Error(`session ${sessionId} is busy`);
 *   try {
 *     await work();
 *   } finally {
 *     await leases.releaseLease(sessionId, lease.lease.owner);
 *   }
 * }
 * ```
 */
export interface LeaseStore {
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
}
