import { monotonicMs } from "../shared/monotonic-ms.js";
import type { LateHandlers } from "./late-handlers.js";

/** How a handler's run ended, as far as the caller is concerned. */
export type HandlerOutcome =
  | { readonly status: "returned"; readonly value: unknown }
  | { readonly status: "threw"; readonly error: unknown }
  | { readonly status: "timeout" }
  | { readonly status: "cancelled" };

/** What a running handler can be told: stop (deadline or cancel), and how it ended after that. */
export interface HandlerTarget {
  abort(reason: unknown): void;
  /**
   * The handler settled after its deadline or cancellation: recorded, never reported. Returns
   * what settles once the record is written, if anything.
   */
  late(outcome: "returned" | "threw"): unknown;
}

/** Thrown into the handler's signal when its deadline passes. */
export class DeadlineExceeded extends Error {
  constructor(timeoutMs: number) {
    super(`the deadline of ${timeoutMs} ms passed`);
    this.name = "TimeoutError";
  }
}

/**
 * A timer's clock is libuv's, cached per loop turn in whole milliseconds: it may fire a fraction
 * of a millisecond before `monotonicMs()` says the deadline passed.
 */
const CLOCK_SLACK_MS = 1;

/** One handler whose promise the watch waits for. */
class Running {
  /** "waiting" until the outcome is known; "stopped" once timed out or cancelled. */
  phase: "waiting" | "done" | "stopped" = "waiting";
  /** Set when the thenable settled before it could be waited for (a synchronous `then`). */
  early: HandlerOutcome | undefined;
  resolve: ((outcome: HandlerOutcome) => void) | undefined;

  constructor(
    readonly watch: HandlerWatch,
    readonly target: HandlerTarget,
    readonly timeoutMs: number,
    readonly deadline: number,
  ) {}

  settle(outcome: HandlerOutcome & { status: "returned" | "threw" }): void {
    if (this.phase === "stopped") {
      // Once only: a hostile thenable may call back twice.
      this.phase = "done";
      let recorded: unknown;
      try {
        recorded = this.target.late(outcome.status);
      } finally {
        this.watch.late?.settle(this, recorded);
      }
      return;
    }
    if (this.phase !== "waiting") return;
    this.phase = "done";
    if (this.resolve === undefined) {
      this.early = outcome;
      return;
    }
    this.watch.forget(this);
    this.resolve(outcome);
  }

  stop(outcome: { readonly status: "timeout" | "cancelled" }, reason: unknown): void {
    if (this.phase !== "waiting") return;
    this.phase = "stopped";
    this.watch.late?.add(this);
    try {
      this.target.abort(reason);
    } catch {
      // Stopping is a courtesy to the handler; the wait ends either way.
    }
    this.resolve?.(outcome);
  }
}

/**
 * Watches the asynchronous handlers of one batch: one deadline timer and one abort listener for
 * the whole batch, armed when the first handler that returns a promise starts, instead of a
 * `setTimeout` and an `addEventListener` for every call (a synchronous handler needs neither).
 * The timer is set for the earliest deadline of the handlers still running; when it fires, the
 * ones past their deadline are stopped and it is set again for the next. `close` (at the end of
 * the batch) lets go of both. A watch made with `{ closeWhenIdle: true }` closes itself when its
 * last handler settles: for a call dispatched on its own.
 *
 * @example
 * ```ts
 * import type { ToolCall, ToolResult } from "./tool-result.js";
 * declare const calls: readonly ToolCall[];
 * declare const run: (call: ToolCall, watch: HandlerWatch) => Promise<ToolResult>;
 * const signal = AbortSignal.timeout(60_000); // the run's
 * const results: ToolResult[] = [];
 * const watch = new HandlerWatch(signal);
 * try {
 *   for (const call of calls) results.push(await run(call, watch));
 * } finally {
 *   watch.close();
 * }
 * ```
 */
export class HandlerWatch {
  readonly #running = new Set<Running>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #listening = false;
  readonly #onAbort = () => this.#cancelAll();
  #closeWhenIdle: boolean;
  /** The checkpoint's handlers that outlive their wait, for `drain`. */
  readonly late: LateHandlers | undefined;

  constructor(
    readonly signal: AbortSignal | undefined,
    { closeWhenIdle = false, late }: { closeWhenIdle?: boolean; late?: LateHandlers } = {},
  ) {
    this.#closeWhenIdle = closeWhenIdle;
    this.late = late;
  }

  /**
   * Wait for a handler's promise (or any thenable), at most `timeoutMs`, or until the signal
   * aborts. Whatever the handler does after that is passed to `target.late` and nothing else.
   */
  wait(
    pending: PromiseLike<unknown>,
    target: HandlerTarget,
    timeoutMs: number,
  ): HandlerOutcome | Promise<HandlerOutcome> {
    const running = new Running(this, target, timeoutMs, monotonicMs() + timeoutMs);
    try {
      pending.then(
        (value) => running.settle({ status: "returned", value }),
        (error: unknown) => running.settle({ status: "threw", error }),
      );
    } catch (error) {
      // A thenable whose `then` throws: the handler failed, and nothing is left to wait for.
      running.phase = "done";
      return { status: "threw", error };
    }
    if (running.early !== undefined) return running.early;
    const signal = this.signal;
    if (signal?.aborted) {
      running.stop({ status: "cancelled" }, signal.reason);
      return { status: "cancelled" };
    }
    this.#running.add(running);
    if (!this.#listening && signal !== undefined) {
      signal.addEventListener("abort", this.#onAbort, { once: true });
      this.#listening = true;
    }
    if (running.deadline < this.#timerAt) this.#arm(running.deadline);
    return new Promise<HandlerOutcome>((resolve) => {
      running.resolve = resolve;
    });
  }

  /** A handler settled in time: no longer watched. */
  forget(running: Running): void {
    this.#running.delete(running);
    if (this.#closeWhenIdle && this.#running.size === 0) this.close();
  }

  /**
   * Let go of the timer and the listener, now or, while handlers still run, once they are done
   * (each is still stopped at its deadline).
   */
  close(): void {
    this.#closeWhenIdle = true;
    if (this.#running.size > 0) return;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
    }
    if (this.#listening) {
      this.signal?.removeEventListener("abort", this.#onAbort);
      this.#listening = false;
    }
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - monotonicMs()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = monotonicMs() + CLOCK_SLACK_MS;
    let next = Number.POSITIVE_INFINITY;
    for (const running of [...this.#running]) {
      if (running.deadline <= now) {
        this.#running.delete(running);
        running.stop({ status: "timeout" }, new DeadlineExceeded(running.timeoutMs));
      } else if (running.deadline < next) {
        next = running.deadline;
      }
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    else if (this.#closeWhenIdle) this.close();
  }

  #cancelAll(): void {
    this.#listening = false;
    const reason = this.signal?.reason;
    const stopped = [...this.#running];
    this.#running.clear();
    for (const running of stopped) running.stop({ status: "cancelled" }, reason);
    if (this.#closeWhenIdle) this.close();
  }
}
