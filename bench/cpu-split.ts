import { median } from "./stats.js";

/** A stretch of work's CPU: the whole process's, and the main thread's where Node reports it. */
export interface CpuSplit {
  readonly wallMs: number;
  /** This process's user + system CPU time, every thread of it. */
  readonly cpuMs: number;
  /**
   * The main thread's share of `cpuMs` (`process.threadCpuUsage`: Node 22.19, 23.9 and later);
   * absent where Node cannot tell it, never a guess.
   */
  readonly mainThreadCpuMs?: number;
}

/** This thread's CPU time, where Node has it (the project's @types/node predate it). */
const threadCpuUsage = (
  process as { threadCpuUsage?: (previous?: NodeJS.CpuUsage) => NodeJS.CpuUsage }
).threadCpuUsage?.bind(process);

/**
 * Time `work`: wall, the process's CPU, and the main thread's. The thread's interval is read
 * inside the process's, so the main thread's figure is never more than the process's.
 *
 * @example
 * ```ts
 * const { cpuMs, mainThreadCpuMs } = await measureCpu(async () => {
 *   await new Promise((resolve) => setTimeout(resolve, 10));
 * });
 * ```
 */
export async function measureCpu(work: () => Promise<void>): Promise<CpuSplit> {
  const start = performance.now();
  const cpu = process.cpuUsage();
  const mainCpu = threadCpuUsage?.();
  await work();
  const mainUsed = mainCpu && threadCpuUsage?.(mainCpu);
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - start;
  return {
    wallMs,
    cpuMs: (used.user + used.system) / 1000,
    ...(mainUsed ? { mainThreadCpuMs: (mainUsed.user + mainUsed.system) / 1000 } : {}),
  };
}

/**
 * The median share of the CPU that ran on the main thread, over runs; undefined when any run
 * lacks the split. A figure split by this share adds up to the figure: the main thread's part
 * and the other threads' (V8's optimising compilers, here nearly all of it) are not medians of
 * their own, which need not add up.
 *
 * @example
 * ```ts
 * mainThreadShare([{ wallMs: 5, cpuMs: 4, mainThreadCpuMs: 3 }]); // 0.75
 * ```
 */
export function mainThreadShare(runs: readonly CpuSplit[]): number | undefined {
  const shares: number[] = [];
  for (const run of runs) {
    if (run.mainThreadCpuMs === undefined || run.cpuMs <= 0) return undefined;
    shares.push(Math.min(1, run.mainThreadCpuMs / run.cpuMs));
  }
  return shares.length === 0 ? undefined : median(shares);
}
