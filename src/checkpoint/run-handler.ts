import { isThenable } from "../shared/is-thenable.js";

/** How a handler's run ended, as far as the caller is concerned. */
export type HandlerOutcome =
  | { readonly status: "returned"; readonly value: unknown }
  | { readonly status: "threw"; readonly error: unknown }
  | { readonly status: "timeout" }
  | { readonly status: "cancelled" };

/** Options for `runHandler`. */
export interface RunHandlerOptions {
  readonly timeoutMs: number;
  /** The caller's signal; aborting it ends the wait at once with `cancelled`. */
  readonly signal: AbortSignal | undefined;
  /** Called when a handler settles after its deadline or cancellation: recorded, never reported. */
  readonly onLate: (outcome: "returned" | "threw") => void;
}

/** Thrown into the handler's signal when its deadline passes. */
export class DeadlineExceeded extends Error {
  constructor(timeoutMs: number) {
    super(`the deadline of ${timeoutMs} ms passed`);
    this.name = "TimeoutError";
  }
}

/** Something whose work can be aborted: the handler's context. */
export interface Abortable {
  abort(reason: unknown): void;
}

/**
 * Run a handler with a deadline and a signal that merges the caller's signal with the deadline.
 * The wait ends at the deadline even if the handler ignores its signal; whatever it does later is
 * passed to `onLate` and nothing else. Synchronous handlers cannot be interrupted, so they are
 * run without arming a timer at all.
 *
 * @example
 * ```ts
 * const outcome = await runHandler(() => handler(args, ctx), ctx, { timeoutMs: 5000, signal, onLate });
 * if (outcome.status === "timeout") { ... }
 * ```
 */
export function runHandler(
  invoke: () => unknown,
  target: Abortable,
  { timeoutMs, signal, onLate }: RunHandlerOptions,
): HandlerOutcome | Promise<HandlerOutcome> {
  let pending: unknown;
  try {
    pending = invoke();
  } catch (error) {
    return { status: "threw", error };
  }
  if (!isThenable(pending)) return { status: "returned", value: pending };

  return new Promise<HandlerOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: HandlerOutcome) => {
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(outcome);
    };
    const onAbort = () => {
      if (settled) return;
      target.abort(signal?.reason);
      finish({ status: "cancelled" });
    };
    const timer = setTimeout(() => {
      if (settled) return;
      target.abort(new DeadlineExceeded(timeoutMs));
      finish({ status: "timeout" });
    }, timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();
    pending.then(
      (value) => (settled ? onLate("returned") : finish({ status: "returned", value })),
      (error: unknown) => (settled ? onLate("threw") : finish({ status: "threw", error })),
    );
  });
}
