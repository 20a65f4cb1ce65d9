import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { mainThreadShare, measureCpu } from "../../bench/cpu-split.js";

const hasThreadClock =
  typeof (process as { threadCpuUsage?: unknown }).threadCpuUsage === "function";

/**
 * A fixed amount of work for the thread that runs it (tens of ms of CPU here): counted, not
 * timed, so a busy machine slows it down without making it less work.
 */
const WORK =
  "let x = 0; for (let i = 0; i < 60_000_000; i += 1) x = (x + i) | 0; globalThis.sink = x;";
const work = new Function(WORK) as () => void;

describe("bench/cpu-split: a run's CPU, by thread", () => {
  it.runIf(hasThreadClock)(
    "puts work on another thread outside the main thread's part",
    async () => {
      // The work on a worker thread, while the main thread only waits for it to exit.
      const split = await measureCpu(
        () =>
          new Promise<void>((resolve, reject) => {
            const worker = new Worker(WORK, { eval: true });
            worker.once("error", reject);
            worker.once("exit", () => resolve());
          }),
      );
      expect(split.mainThreadCpuMs).toBeDefined();
      const main = split.mainThreadCpuMs ?? split.cpuMs;
      expect(main).toBeLessThanOrEqual(split.cpuMs);
      expect(split.cpuMs - main).toBeGreaterThanOrEqual(10);
      expect(split.cpuMs - main).toBeGreaterThan(main);
    },
  );

  it.runIf(hasThreadClock)("puts work on the main thread inside its part", async () => {
    const split = await measureCpu(async () => work());
    const main = split.mainThreadCpuMs ?? 0;
    expect(main).toBeGreaterThanOrEqual(10);
    expect(main).toBeLessThanOrEqual(split.cpuMs);
    expect(main).toBeGreaterThan(0.7 * split.cpuMs);
  });

  it.skipIf(hasThreadClock)("reports no split where Node has no thread clock", async () => {
    const split = await measureCpu(async () => work());
    expect(split.mainThreadCpuMs).toBeUndefined();
  });

  it("splits a figure by the runs' median share, so the parts add up, or not at all", () => {
    const runs = [
      { wallMs: 5, cpuMs: 4, mainThreadCpuMs: 3 },
      { wallMs: 5, cpuMs: 6, mainThreadCpuMs: 3 },
      { wallMs: 5, cpuMs: 2, mainThreadCpuMs: 1.8 },
    ];
    expect(mainThreadShare(runs)).toBe(0.75);
    // A run without the split (a Node before the thread clock) leaves no split, not a partial one.
    expect(mainThreadShare([...runs, { wallMs: 5, cpuMs: 4 }])).toBeUndefined();
    expect(mainThreadShare([])).toBeUndefined();
    // Two clocks' ticks never make the main thread more than the whole.
    expect(mainThreadShare([{ wallMs: 1, cpuMs: 1, mainThreadCpuMs: 1.001 }])).toBe(1);
  });
});
