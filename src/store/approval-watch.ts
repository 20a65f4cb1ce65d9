/**
 * Interest in one approval's decision, taken before its status is read, so that a decision made
 * between the read and the wait is not missed. `next` resolves when the approval may have
 * changed (a wake-up), after `timeoutMs`, or when `signal` aborts; the caller reads it again.
 */
export interface ApprovalWatch {
  /** True when decisions wake `next` (PostgreSQL LISTEN/NOTIFY); false when it only polls. */
  readonly wakes: boolean;
  next(timeoutMs: number, signal?: AbortSignal): Promise<void>;
  close(): void;
}

/**
 * What a watch does where the engine cannot notify (SQLite): wait the poll interval.
 *
 * @example
 * ```ts
 * const signal = AbortSignal.timeout(60_000); // the run's
 * const watch = pollingWatch();
 * await watch.next(500, signal); // half a second later, read the approval again
 * ```
 */
export function pollingWatch(): ApprovalWatch {
  return {
    wakes: false,
    next: (timeoutMs, signal) => waitFor(undefined, timeoutMs, signal),
    close: () => undefined,
  };
}

/**
 * Resolve after `timeoutMs`, on `signal`'s abort, or when `woken` resolves, whichever is first.
 *
 * @example
 * ```ts
 * declare const wakeUp: Promise<void>; // resolves on the store's notification
 * const signal = AbortSignal.timeout(60_000); // the run's
 * await waitFor(wakeUp, 10_000, signal);
 * ```
 */
export function waitFor(
  woken: Promise<void> | undefined,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    if (signal?.aborted) return done();
    signal?.addEventListener("abort", done, { once: true });
    void woken?.then(done, done);
  });
}
