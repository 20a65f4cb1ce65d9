import type { Awaitable } from "./store-engine.js";

/** Who runs a session now, and until when (ms since the epoch) unless renewed. */
export interface SessionLease {
  readonly sessionId: string;
  /** The holder's id: the store's owner (`host/pid/uuid`) and the run's id. */
  readonly owner: string;
  readonly since: number;
  readonly expiresAt: number;
}

/**
 * What taking a lease gave: `acquired` (free, expired, or already this owner's) or `held` by
 * someone else, with who and since when.
 */
export type LeaseResult =
  | { readonly status: "acquired"; readonly lease: SessionLease }
  | { readonly status: "held"; readonly lease: SessionLease };

/**
 * The `session_leases` table as each engine speaks it. Times are the database's clock on
 * PostgreSQL (one clock for every machine) and the store's clock on SQLite (one machine).
 *
 * @example
 * ```ts
 * declare const engine: import("./store-engine.js").StoreEngine;
 * const taken = await engine.leases.acquire("s1", "host/1/uuid#run", 30_000);
 * if (taken.status === "held") console.log(taken.lease.owner);
 * ```
 */
export interface LeaseTable {
  /** Take the lease when it is free, expired or already `owner`'s (then it is extended). */
  acquire(sessionId: string, owner: string, ttlMs: number): Awaitable<LeaseResult>;
  /** Extend `owner`'s lease; false when it is no longer `owner`'s (taken over or released). */
  renew(sessionId: string, owner: string, ttlMs: number): Awaitable<boolean>;
  /** Let go of `owner`'s lease; a lease taken over by another is left alone. */
  release(sessionId: string, owner: string): Awaitable<void>;
  get(sessionId: string): Awaitable<SessionLease | undefined>;
  /** Take the lease from `from` (a holder known dead) for `owner`: undefined if `from` lost it first. */
  takeOver(
    sessionId: string,
    from: string,
    owner: string,
    ttlMs: number,
  ): Awaitable<SessionLease | undefined>;
}

/** Turn a `session_leases` row (either engine) into a lease. */
export function toLease(row: Record<string, unknown>): SessionLease {
  return {
    sessionId: String(row.session_id),
    owner: String(row.owner),
    since: Number(row.since),
    expiresAt: Number(row.expires_at),
  };
}
