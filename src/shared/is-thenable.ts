/**
 * Whether a value is a promise or promise-like. The checkpoint awaits only what is really
 * asynchronous: every needless `await` is a trip through the microtask queue on each call.
 *
 * @example
 * ```ts
 * declare const compute: () => number | Promise<number>; // sync or async, as a caller chose
 * const value = compute();
 * const result = isThenable(value) ? await value : value;
 * ```
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
