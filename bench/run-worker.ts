import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { WorkerReport } from "./loop-worker.js";

const run = promisify(execFile);
const WORKER = fileURLToPath(new URL("./loop-worker.js", import.meta.url));

/**
 * Run the loop workload in a fresh process (bench/loop-worker) and read its report, the last
 * line of its stdout.
 *
 * @example
 * ```ts
 * const report = await runWorker("docket", "file", 10, 5);
 * ```
 */
export async function runWorker(
  system: WorkerReport["system"],
  store: WorkerReport["store"],
  turns: number,
  runs: number,
): Promise<WorkerReport> {
  const { stdout } = await run(
    process.execPath,
    ["--expose-gc", WORKER, system, store, String(turns), String(runs)],
    { maxBuffer: 1 << 20 },
  );
  const last = stdout.trim().split("\n").at(-1) ?? "";
  return JSON.parse(last) as WorkerReport;
}
