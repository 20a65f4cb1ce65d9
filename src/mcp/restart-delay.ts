/** Bounds of the wait before restarting a server that crashed. */
export interface RestartDelayOptions {
  /** The wait after the first failure. Default 500 ms. */
  readonly baseMs?: number;
  /** The longest wait. Default 30 s. */
  readonly maxMs?: number;
}

/**
 * How long to wait before restarting a server after `failures` crashes or failed starts in a
 * row: 0.5 s, 1 s, 2 s, 4 s … at most 30 s. A server that dies at start-up is then retried a
 * handful of times a minute, not in a hot loop.
 *
 * @example
 * ```ts
 * restartDelay(0); // 0
 * restartDelay(1); // 500
 * restartDelay(3); // 2000
 * restartDelay(20); // 30000
 * ```
 */
export function restartDelay(
  failures: number,
  { baseMs = 500, maxMs = 30_000 }: RestartDelayOptions = {},
): number {
  if (failures <= 0) return 0;
  return Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 30));
}
