import { isThenable } from "../shared/is-thenable.js";

/** How many stopped handlers are waited for at most. */
const MAX_TRACKED = 1024;

/**
 * Handlers the checkpoint stopped waiting for (deadline passed, run cancelled) that are still
 * running: their late completion is still to be recorded. Whoever closes the store the events go
 * to drains them first, or a Ctrl-C during a command ends with "the store is closed" instead of
 * the command's late completion on record.
 *
 * @example
 * ```ts
 * declare const token: object; // one handler's, from its HandlerWatch
 * declare const recordedPromise: Promise<void>;
 * const late = new LateHandlers();
 * late.add(token);                      // stopped at its deadline, still running
 * late.settle(token, recordedPromise);  // it ended; its event is being recorded
 * await late.drain({ timeoutMs: 5000 });
 * ```
 */
export class LateHandlers {
  readonly #running = new Set<object>();
  #waiters: (() => void)[] = [];

  /** How many are still running or being recorded. */
  get size(): number {
    return this.#running.size;
  }

  /**
   * A handler was stopped but has not ended. Past MAX_TRACKED (handlers that never end, in a
   * long-lived gateway) the rest are not waited for rather than kept forever.
   */
  add(token: object): void {
    if (this.#running.size < MAX_TRACKED) this.#running.add(token);
  }

  /** It ended; `recorded`, if a promise, settles once its late completion is on record. */
  settle(token: object, recorded: unknown): void {
    if (!isThenable(recorded)) {
      this.#remove(token);
      return;
    }
    Promise.resolve(recorded).then(
      () => this.#remove(token),
      () => this.#remove(token),
    );
  }

  /**
   * Resolves when every stopped handler has ended and its late completion is recorded, or after
   * `timeoutMs` (a handler that ignores its signal may never end): true if all were drained.
   */
  drain({ timeoutMs = 5000 }: { timeoutMs?: number } = {}): Promise<boolean> {
    if (this.#running.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((waiter) => waiter !== done);
        resolve(false);
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#waiters.push(done);
    });
  }

  #remove(token: object): void {
    if (!this.#running.delete(token) || this.#running.size > 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const waiter of waiters) waiter();
  }
}
