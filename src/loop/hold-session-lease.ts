import { DocketError } from "../errors/docket-error.js";
import type { SessionLease } from "../store/session-lease.js";
import type { Store } from "../store/store.js";

/** How a run takes its session's lease. */
export interface LeaseOptions {
  /** How long to wait for a session another runner holds, in ms. Default 0: refuse at once. */
  readonly wait?: number;
  /** How long the lease lasts unless renewed; the heartbeat renews it every third. Default 30 s. */
  readonly ttlMs?: number;
}

/** A lease this run holds until `release`. */
export interface HeldLease {
  readonly owner: string;
  /** Aborted when the lease was lost (taken over after it lapsed): the run must stop. */
  readonly lost: AbortSignal;
  release(): Promise<void>;
  /**
   * Release it by `write`, a commit that also lets go of this owner's lease (the run's end):
   * renewals stop first; once `write` succeeds, `release` has nothing left to do.
   */
  releaseWith(write: () => Promise<void>): Promise<void>;
}

/** How long a run's lease lasts unless renewed, when the options do not say. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The refusal of a run whose session another runner holds, naming the holder.
 *
 * @example
 * ```ts
 * throw sessionBusy({ sessionId: "s1", owner: "host/1/uuid#run", since: 0, expiresAt: 30_000 });
 * ```
 */
export function sessionBusy(lease: SessionLease): DocketError {
  return new DocketError("session_busy", busyMessage(lease), {
    cause: { owner: lease.owner, since: lease.since },
  });
}

function busyMessage(lease: SessionLease): string {
  return `Session ${lease.sessionId} is being run by ${lease.owner} since ${new Date(lease.since).toISOString()} (its lease lapses at ${new Date(lease.expiresAt).toISOString()} unless renewed). Try again when that run ends, or wait for it (lease: { wait: ms }).`;
}

/**
 * Take a session's lease before a run touches it, or throw DocketError("session_busy") naming
 * the holder (after waiting up to `wait` ms). While held, an unref'd timer renews it; if a
 * renewal finds it gone, or renewals fail until it would have lapsed, `lost` is aborted.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * declare const run: (lost: AbortSignal) => Promise<void>; // stops when `lost` is aborted
 * const sessionId = "support-7";
 * const runId = "run-2";
 * const lease = await holdSessionLease(store, sessionId, `${store.owner}#${runId}`, { wait: 5_000 });
 * try { await run(lease.lost); } finally { await lease.release(); }
 * ```
 */
export async function holdSessionLease(
  store: Store,
  sessionId: string,
  owner: string,
  { wait = 0, ttlMs = DEFAULT_LEASE_TTL_MS }: LeaseOptions = {},
): Promise<HeldLease> {
  const deadline = Date.now() + wait;
  for (let attempt = 0; ; attempt += 1) {
    const taken = await store.acquireLease(sessionId, { owner, ttlMs });
    if (taken.status === "acquired") break;
    const left = deadline - Date.now();
    if (left <= 0) throw sessionBusy(taken.lease);
    // Jittered back-off up to 250 ms: waiters of one session do not retry in lockstep.
    await sleep(Math.min(left, Math.min(250, 20 * 2 ** attempt) * (0.5 + Math.random() / 2)));
  }
  return keepSessionLease(store, sessionId, owner, ttlMs);
}

/**
 * Keep a lease this owner has just taken (by `holdSessionLease`, or with the session itself,
 * `store.startSession`): an unref'd timer renews it every third of `ttlMs` until released.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * const owner = `${store.owner}#run-1`;
 * const started = await store.startSession({ principal: "agent", configHash: "" }, { lease: { owner, ttlMs: 30_000 } });
 * if (started.status === "started") await keepSessionLease(store, started.session.id, owner, 30_000).release();
 * ```
 */
export function keepSessionLease(
  store: Store,
  sessionId: string,
  owner: string,
  ttlMs: number,
): HeldLease {
  const lost = new AbortController();
  let renewedAt = Date.now();
  let renewing = false;
  // Set when the run lets go: a renewal still in flight then finds the lease gone, as it should.
  let stopped = false;
  const heartbeat = setInterval(
    () => {
      if (lost.signal.aborted) return;
      // A renewal that has not answered by the time the lease lapses (a store that stopped
      // answering) does not keep the run going past it: another runner may take it over now.
      if (renewing && Date.now() - renewedAt >= ttlMs) {
        lost.abort(lostError(sessionId, "it could not be renewed before it lapsed"));
        return;
      }
      if (renewing) return;
      renewing = true;
      const tried = Date.now();
      store
        .renewLease(sessionId, owner, ttlMs)
        .then((held) => {
          if (held) renewedAt = tried;
          else if (!stopped) lost.abort(lostError(sessionId, "another runner took it over"));
        })
        .catch(() => {
          // A store briefly out of reach is no reason to stop; a lease that lapsed meanwhile is.
          if (Date.now() - renewedAt >= ttlMs) {
            lost.abort(lostError(sessionId, "it could not be renewed before it lapsed"));
          }
        })
        .finally(() => {
          renewing = false;
        });
    },
    Math.max(1, Math.floor(ttlMs / 3)),
  );
  heartbeat.unref?.();
  const stop = () => {
    stopped = true;
    clearInterval(heartbeat);
  };
  let released = false;
  return {
    owner,
    lost: lost.signal,
    async release() {
      stop();
      if (released) return;
      // A release that fails is harmless: the lease lapses by itself after ttlMs.
      await store.releaseLease(sessionId, owner).catch(() => undefined);
    },
    async releaseWith(write) {
      stop();
      await write();
      released = true;
    },
  };
}

function lostError(sessionId: string, why: string): DocketError {
  return new DocketError(
    "lease_lost",
    `The run of session ${sessionId} stopped: its lease was lost (${why}); the session is saved and can be resumed.`,
  );
}
