import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/**
 * fsync and fdatasync calls of one worker process (all its threads), counted by strace: the
 * disk flushes a system pays for its durability. `undefined` where strace is missing or not
 * permitted.
 *
 * @example
 * ```ts
 * const flushes = await countWorkerSyncs("docket-write", "file", 10, 3);
 * ```
 */
export async function countWorkerSyncs(
  system: WorkerReport["system"],
  store: WorkerReport["store"],
  turns: number,
  runs: number,
): Promise<number | undefined> {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-strace-"));
  const out = join(dir, "summary");
  try {
    await run(
      "strace",
      [
        "-f",
        // Stops only at the traced calls: a 1,000-turn run takes seconds, not minutes.
        "--seccomp-bpf",
        "-c",
        "-e",
        "trace=fsync,fdatasync",
        "-o",
        out,
        process.execPath,
        WORKER,
        system,
        store,
        String(turns),
        String(runs),
      ],
      { maxBuffer: 1 << 20 },
    );
    // strace -c: "% time  seconds  usecs/call  calls  errors  syscall" rows, then a total row.
    let syncs = 0;
    for (const line of readFileSync(out, "utf8").split("\n")) {
      const cells = line.trim().split(/\s+/);
      const name = cells.at(-1);
      if (name === "fsync" || name === "fdatasync") syncs += Number(cells[3]);
    }
    return syncs;
  } catch {
    return undefined;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
