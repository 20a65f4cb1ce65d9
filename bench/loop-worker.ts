// First: the bench's tool has a terse description; its lint warning is not a figure.
import "../src/cli/quiet-tool-lint.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CpuSplit, measureCpu } from "./cpu-split.js";
import { durableAiSdkSystem } from "./durable-peer.js";
import { aiSdkSystem, DOCKET_SYSTEMS, docketSystem, type LoopSystem } from "./loop-systems.js";
import { workloadModel, workloadScript } from "./loop-workload.js";

/**
 * One run of the workload, as the worker reports it: its wall time, the process's CPU (steadier
 * on a shared machine) and the main thread's part of it (`CpuSplit`). The rest ran on the
 * process's other threads: here nearly all V8's optimising compilers, whose jobs may have been
 * queued by an earlier run (ADR 0097).
 */
export interface WorkerRun extends CpuSplit {
  /** Time inside the fake model's doGenerate / doStream. */
  readonly modelMs: number;
}

/** What a worker process prints as its last line, in JSON. */
export interface WorkerReport {
  /**
   * docket with a read tool or a write tool, each also with a store that keeps nothing per call
   * and with one that commits nothing (the bench's bounds), the AI SDK alone or with a durable
   * hand-made trail.
   */
  readonly system: keyof typeof DOCKET_SYSTEMS | "ai-sdk" | "ai-sdk-durable";
  readonly store: "file" | "memory" | "none";
  readonly turns: number;
  /** The first run in the process, not counted in the figures. */
  readonly warmup: WorkerRun;
  readonly runs: readonly WorkerRun[];
  /** Peak resident set size of the process, in bytes. */
  readonly maxRssBytes: number;
  /** The heap in use after the runs: after a full GC when run with --expose-gc (as runWorker does). */
  readonly liveHeapBytes: number;
  /** With RUNS 0 and --expose-gc: the heap in use after a full GC when the last turn is asked for. */
  readonly liveHeapAtLastTurn?: number;
}

const SYSTEMS: readonly WorkerReport["system"][] = [
  ...(Object.keys(DOCKET_SYSTEMS) as (keyof typeof DOCKET_SYSTEMS)[]),
  "ai-sdk",
  "ai-sdk-durable",
];

/** The loop of one system, its store (if any) in `dir`. */
function openSystem(
  system: WorkerReport["system"],
  { store, dir }: { store: "file" | "memory"; dir: string },
): Promise<LoopSystem> {
  switch (system) {
    case "ai-sdk-durable":
      return durableAiSdkSystem({ dir });
    case "ai-sdk":
      return aiSdkSystem();
    default:
      return docketSystem({ store, dir, ...DOCKET_SYSTEMS[system] });
  }
}

async function timedRun(
  system: LoopSystem,
  turns: number,
  onLastReply?: () => void,
): Promise<WorkerRun> {
  // Built before the clock starts: the replies are the model's, not the system's.
  const workload = workloadModel(workloadScript(turns), onLastReply ? { onLastReply } : {});
  const split = await measureCpu(() => system.run(workload.model, turns));
  return { ...split, modelMs: workload.spentMs() };
}

/**
 * `node loop-worker.js SYSTEM STORE TURNS RUNS`: one warm-up run of the workload then RUNS timed
 * ones in this process, and a {@link WorkerReport} as the last line of stdout. SYSTEM is one of
 * {@link WorkerReport}'s systems (`docket`, `ai-sdk`, …); STORE is `file` or `memory` (docket)
 * or `none`. RUNS 0 measures the first run only (the memory figures).
 */
async function main(argv: readonly string[]): Promise<void> {
  const [named, store, turnsArg, runsArg] = argv;
  const turns = Number(turnsArg);
  const runs = Number(runsArg);
  const system = SYSTEMS.find((known) => known === named);
  if (system === undefined)
    throw new Error(`unknown system ${named}; systems: ${SYSTEMS.join(", ")}`);
  if (store !== "file" && store !== "memory" && store !== "none")
    throw new Error(`unknown store ${store}`);
  if (!Number.isInteger(turns) || turns < 1 || !Number.isInteger(runs) || runs < 0)
    throw new Error("TURNS must be a positive integer, RUNS a non-negative one");
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-peer-"));
  try {
    const kind = store === "memory" ? "memory" : "file";
    const loop = await openSystem(system, { store: kind, dir });
    const gc = (globalThis as { gc?: () => void }).gc;
    let liveHeapAtLastTurn: number | undefined;
    // Only for a single-run measurement (memory): a full GC inside a timed run would be timed.
    const atLastTurn =
      runs === 0 && gc
        ? () => {
            gc();
            liveHeapAtLastTurn = process.memoryUsage().heapUsed;
          }
        : undefined;
    const warmup = await timedRun(loop, turns, atLastTurn);
    const timed: WorkerRun[] = [];
    for (let i = 0; i < runs; i += 1) timed.push(await timedRun(loop, turns));
    // What the runs left behind, not garbage the collector had not reached yet.
    gc?.();
    const report: WorkerReport = {
      system,
      store,
      turns,
      warmup,
      runs: timed,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      liveHeapBytes: process.memoryUsage().heapUsed,
      ...(liveHeapAtLastTurn === undefined ? {} : { liveHeapAtLastTurn }),
    };
    await loop.close();
    console.log(JSON.stringify(report));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main(process.argv.slice(2));
