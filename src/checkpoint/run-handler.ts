import { isThenable } from "../shared/is-thenable.js";
import { type HandlerOutcome, type HandlerTarget, HandlerWatch } from "./handler-watch.js";
import type { LateHandlers } from "./late-handlers.js";

export { DeadlineExceeded, type HandlerOutcome, type HandlerTarget } from "./handler-watch.js";

/** Options for `runHandler`. */
export interface RunHandlerOptions {
  readonly timeoutMs: number;
  /** The caller's signal; aborting it ends the wait at once with `cancelled`. */
  readonly signal: AbortSignal | undefined;
  /**
   * The batch's watch (its signal is the batch's): one timer and one listener for all its calls.
   * Without one, a call that returns a promise gets a watch of its own.
   */
  readonly watch?: HandlerWatch | undefined;
  /** Where a handler that outlives its wait is tracked until it ends (`checkpoint.drain`). */
  readonly late?: LateHandlers | undefined;
}

/**
 * Run a handler with a deadline and a signal that merges the caller's signal with the deadline.
 * The wait ends at the deadline even if the handler ignores its signal; whatever it does later is
 * passed to `target.late` and nothing else. A synchronous handler cannot be interrupted, so it
 * costs nothing more than the call: no timer, no listener, no closure, no promise.
 *
 * @example
 * ```ts
 * declare const [handler, args, ctx]: Parameters<typeof runHandler>;
 * const signal = AbortSignal.timeout(60_000); // the run's
 * const outcome = await runHandler(handler, args, ctx, { timeoutMs: 5000, signal });
 * if (outcome.status === "timeout") console.log("stopped at its deadline; the model is told");
 * ```
 */
export function runHandler<A, C extends HandlerTarget>(
  handler: (args: A, ctx: C) => unknown,
  args: A,
  target: C,
  { timeoutMs, signal, watch, late }: RunHandlerOptions,
): HandlerOutcome | Promise<HandlerOutcome> {
  let pending: unknown;
  let thenable: boolean;
  try {
    pending = handler(args, target);
    // Inside the try: a hostile result's `then` getter may throw.
    thenable = isThenable(pending);
  } catch (error) {
    return { status: "threw", error };
  }
  if (!thenable) return { status: "returned", value: pending };
  const watching = watch ?? new HandlerWatch(signal, { closeWhenIdle: true, late });
  return watching.wait(pending as PromiseLike<unknown>, target, timeoutMs);
}
