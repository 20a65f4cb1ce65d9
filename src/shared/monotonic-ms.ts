/**
 * Milliseconds on a monotonic clock (an arbitrary origin: use differences only). As
 * `performance.now()`, but the first use of Node's `performance` global loads `perf_hooks`
 * (about 2 ms of a cold process), which a process that decides one call does not need.
 *
 * @example
 * ```ts
 * const started = monotonicMs();
 * const elapsed = monotonicMs() - started;
 * ```
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
