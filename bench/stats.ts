/** Summary statistics for a list of per-operation timings, in microseconds. */
export interface Timing {
  readonly medianUs: number;
  readonly p99Us: number;
  readonly perSecond: number;
}

/**
 * Median, 99th percentile and throughput of per-operation durations given in milliseconds.
 *
 * @example
 * ```ts
 * summarise([0.001, 0.002, 0.003]).medianUs; // 2
 * ```
 */
export function summarise(durationsMs: readonly number[]): Timing {
  const sorted = [...durationsMs].sort((a, b) => a - b);
  const at = (q: number) =>
    (sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 1000;
  const totalMs = sorted.reduce((sum, d) => sum + d, 0);
  return { medianUs: at(0.5), p99Us: at(0.99), perSecond: sorted.length / (totalMs / 1000) };
}

/**
 * Format a number of microseconds for a figure line.
 *
 * @example
 * ```ts
 * us(1.234); // "1.23 µs"
 * ```
 */
export function us(value: number): string {
  return `${value.toFixed(2)} µs`;
}

/**
 * The median of a list of numbers.
 *
 * @example
 * ```ts
 * median([3, 1, 2]); // 2
 * ```
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}
