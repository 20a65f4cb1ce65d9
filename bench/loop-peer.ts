import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import type { WorkerReport, WorkerRun } from "./loop-worker.js";
import { CALLS_PER_TURN } from "./loop-workload.js";
import { runWorker } from "./run-worker.js";
import { median } from "./stats.js";

const TIMED_RUNS = 5;

/** Median figures per call of one system at one run length, over all its timed runs. */
export interface PeerFigures {
  readonly wallUs: number;
  readonly cpuUs: number;
  /** The first run of each process (its warm-up), wall time per call. */
  readonly firstWallUs: number;
  readonly firstCpuUs: number;
  /** The fastest timed run's CPU time per call: what a run costs when nothing else gets in. */
  readonly fastestCpuUs: number;
  /** Each process's median wall time per call: how far processes differ. */
  readonly processWallUs: readonly number[];
  readonly modelUs: number;
}

function figures(reports: readonly WorkerReport[], turns: number): PeerFigures {
  const calls = turns * CALLS_PER_TURN;
  const per = (ms: number) => (ms * 1000) / calls;
  const timed: WorkerRun[] = reports.flatMap((r) => r.runs);
  return {
    wallUs: median(timed.map((r) => per(r.wallMs))),
    cpuUs: median(timed.map((r) => per(r.cpuMs))),
    firstWallUs: median(reports.map((r) => per(r.warmup.wallMs))),
    firstCpuUs: median(reports.map((r) => per(r.warmup.cpuMs))),
    fastestCpuUs: Math.min(...timed.map((r) => per(r.cpuMs))),
    processWallUs: reports.map((r) => median(r.runs.map((x) => per(x.wallMs)))),
    modelUs: median(timed.map((r) => per(r.modelMs))),
  };
}

/** What the issue asks of docket against the AI SDK: the ratio docket / AI SDK at most this. */
const TARGET_RATIO: Record<number, number> = { 10: 1, 100: 1 / 3 };

function verdict(ratio: number, target: number): string {
  return ratio <= target ? "met" : "MISSED";
}

function aiVersion(): string {
  try {
    const path = fileURLToPath(import.meta.resolve("ai/package.json"));
    return (JSON.parse(readFileSync(path, "utf8")) as { version: string }).version;
  } catch {
    return "?";
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const col = (value: number, width = 9) => value.toFixed(1).padStart(width);

/**
 * docket beside the AI SDK's generateText on the same workload: `lengths` run lengths of N turns
 * of 10 no-op zod calls from a zero-latency fake LanguageModelV4. Every measurement is a process
 * of its own (one warm-up run, then five timed ones), docket's and the AI SDK's taken in turn, so
 * the machine's slow moments fall on both alike. Prints per run length the median time per call
 * of each (wall and CPU), their ratio, and the issue's targets.
 */
export async function benchLoopPeer({
  lengths = [1, 3, 10, 100],
  processes = 3,
}: {
  lengths?: readonly number[];
  processes?: number;
} = {}): Promise<void> {
  const startLoad = load();
  console.log(
    `bench/loop peer: N turns x ${CALLS_PER_TURN} no-op zod calls, a zero-latency fake LanguageModelV4; docket = createHarness + SQLite file store (audit on), AI SDK = generateText (ai ${aiVersion()}) with stopWhen stepCountIs(N+1)`,
  );
  console.log(
    `  ${processes} process${processes === 1 ? "" : "es"} per system and run length, interleaved; each 1 warm-up + ${TIMED_RUNS} timed runs; medians per call of all timed runs (load average ${startLoad})`,
  );
  console.log(
    "  turns   docket µs  AI SDK µs  ratio |  docket CPU  AI SDK CPU  ratio | fastest run, CPU | first run in a process, µs (CPU)",
  );
  const verdicts: string[] = [];
  for (const turns of lengths) {
    const docket: WorkerReport[] = [];
    const sdk: WorkerReport[] = [];
    for (let p = 0; p < processes; p += 1) {
      // Alternate who goes first, so neither always runs right after the other's exit.
      if (p % 2 === 0) {
        docket.push(await runWorker("docket", "file", turns, TIMED_RUNS));
        sdk.push(await runWorker("ai-sdk", "none", turns, TIMED_RUNS));
      } else {
        sdk.push(await runWorker("ai-sdk", "none", turns, TIMED_RUNS));
        docket.push(await runWorker("docket", "file", turns, TIMED_RUNS));
      }
    }
    const d = figures(docket, turns);
    const s = figures(sdk, turns);
    const wallRatio = d.wallUs / s.wallUs;
    const cpuRatio = d.cpuUs / s.cpuUs;
    console.log(
      `  ${String(turns).padStart(5)} ${col(d.wallUs, 11)} ${col(s.wallUs, 10)} ${wallRatio.toFixed(2).padStart(6)} | ${col(d.cpuUs, 11)} ${col(s.cpuUs, 11)} ${cpuRatio.toFixed(2).padStart(6)} | ${`${d.fastestCpuUs.toFixed(0)} / ${s.fastestCpuUs.toFixed(0)}`.padEnd(16)} | ${d.firstWallUs.toFixed(0)} / ${s.firstWallUs.toFixed(0)} (${d.firstCpuUs.toFixed(0)} / ${s.firstCpuUs.toFixed(0)})`,
    );
    console.log(
      `          per process, wall: docket ${d.processWallUs.map((v) => v.toFixed(0)).join(", ")}; AI SDK ${s.processWallUs.map((v) => v.toFixed(0)).join(", ")}; in the fake model: ${d.modelUs.toFixed(1)} / ${s.modelUs.toFixed(1)}`,
    );
    const target = TARGET_RATIO[turns];
    if (target !== undefined) {
      const bound = target === 1 ? "AI SDK" : `1/${Math.round(1 / target)} of AI SDK`;
      verdicts.push(
        `  target at ${turns} turns, docket <= ${bound}: wall ${verdict(wallRatio, target)} (${wallRatio.toFixed(2)}), CPU ${verdict(cpuRatio, target)} (${cpuRatio.toFixed(2)})`,
      );
    }
  }
  for (const line of verdicts) console.log(line);
  console.log(`  load average at the start ${startLoad}, at the end ${load()}`);
}
