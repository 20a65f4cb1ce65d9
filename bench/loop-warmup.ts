import { loadavg } from "node:os";
import type { WorkerReport } from "./loop-worker.js";
import { CALLS_PER_TURN } from "./loop-workload.js";
import { runWorker } from "./run-worker.js";
import { median } from "./stats.js";

/** A span of a process's runs, counted from 1 (the warm-up run), both ends included. */
export interface RunSpan {
  readonly from: number;
  readonly to: number;
}

/**
 * The spans the part prints: the first run, the `peer` table's timed runs (2-6), then on to a
 * warm process. A harness kept by a service passes through all of them.
 */
export const WARMUP_SPANS: readonly RunSpan[] = [
  { from: 1, to: 1 },
  { from: 2, to: 6 },
  { from: 7, to: 11 },
  { from: 12, to: 16 },
  { from: 17, to: 25 },
];

/**
 * The CPU a call of each span: the median, over every run of the span in every process, of a
 * run's CPU divided by its calls. A span past the processes' last run is left out.
 *
 * @example
 * ```ts
 * spanCpuPerCall(reports, 10, WARMUP_SPANS); // [{ span: { from: 1, to: 1 }, cpuUs: 640 }, ...]
 * ```
 */
export function spanCpuPerCall(
  reports: readonly WorkerReport[],
  turns: number,
  spans: readonly RunSpan[],
): { span: RunSpan; cpuUs: number }[] {
  const calls = turns * CALLS_PER_TURN;
  const perCall = (run: WorkerReport["warmup"]) => (run.cpuMs * 1000) / calls;
  // Run 1 is the report's warm-up; runs 2.. are its timed runs.
  const runsOf = (report: WorkerReport) => [report.warmup, ...report.runs];
  const out: { span: RunSpan; cpuUs: number }[] = [];
  for (const span of spans) {
    const values = reports.flatMap((report) =>
      runsOf(report)
        .slice(span.from - 1, span.to)
        .map(perCall),
    );
    if (values.length > 0) out.push({ span, cpuUs: median(values) });
  }
  return out;
}

const label = ({ from, to }: RunSpan) => (from === to ? `run ${from}` : `runs ${from}-${to}`);

/**
 * `DOCKET_BENCH_LOOP=warmup`: how a process's CPU a call moves from its first run to warm code,
 * for docket and its peer side by side, at one run length. Each process runs the workload 25
 * times; the figures are medians a call over each span of runs. The `peer` table's timed runs are
 * runs 2-6 of their processes, so this shows how much of its ratio is V8 still compiling each
 * system's code (ADR 0088): V8 optimises a function after hundreds to thousands of calls, and
 * docket runs more functions a call than the AI SDK does.
 */
export async function benchLoopWarmup({
  turns = 10,
  processes = 3,
  spans = WARMUP_SPANS,
}: {
  turns?: number;
  processes?: number;
  spans?: readonly RunSpan[];
} = {}): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  const startLoad = load();
  const runs = Math.max(...spans.map((span) => span.to));
  console.log(
    `bench/loop warmup: ${turns} turns x ${CALLS_PER_TURN} no-op calls a run, ${runs} runs in each of ${processes} processes a system, interleaved; CPU µs a call, medians over each span of runs (load average ${startLoad})`,
  );
  const pairings = [
    ["docket", "ai-sdk", "read tool: docket / AI SDK"],
    ["docket-write", "ai-sdk-durable", "write tool: docket / durable AI SDK peer"],
  ] as const;
  for (const [docketSystem, peerSystem, title] of pairings) {
    const docket: WorkerReport[] = [];
    const peer: WorkerReport[] = [];
    for (let p = 0; p < processes; p += 1) {
      const order = p % 2 === 0 ? [docket, peer] : [peer, docket];
      for (const into of order) {
        const system = into === docket ? docketSystem : peerSystem;
        into.push(await runWorker(system, system === "ai-sdk" ? "none" : "file", turns, runs - 1));
      }
    }
    const d = spanCpuPerCall(docket, turns, spans);
    const s = spanCpuPerCall(peer, turns, spans);
    console.log(`  ${title}`);
    for (const [i, { span, cpuUs }] of d.entries()) {
      const peerUs = s[i]?.cpuUs ?? Number.NaN;
      console.log(
        `    ${label(span).padEnd(11)} ${cpuUs.toFixed(1).padStart(8)} ${peerUs.toFixed(1).padStart(8)}   ratio ${(cpuUs / peerUs).toFixed(2)}`,
      );
    }
  }
  console.log(`  load average at the start ${startLoad}, at the end ${load()}`);
}
