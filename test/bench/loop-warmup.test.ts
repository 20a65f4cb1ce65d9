import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { spanCpuPerCall, WARMUP_SPANS } from "../../bench/loop-warmup.js";
import type { WorkerReport, WorkerRun } from "../../bench/loop-worker.js";
import { CALLS_PER_TURN } from "../../bench/loop-workload.js";

const run = promisify(execFile);
const tsx = import.meta.resolve("tsx");
const worker = fileURLToPath(new URL("../../bench/loop-worker.ts", import.meta.url));

/** A run whose CPU is `cpuUsPerCall` a call at `turns` turns. */
const runOf = (cpuUsPerCall: number, turns: number): WorkerRun => ({
  wallMs: 0,
  cpuMs: (cpuUsPerCall * turns * CALLS_PER_TURN) / 1000,
  modelMs: 0,
});

const report = (perCall: readonly number[], turns: number): WorkerReport => ({
  system: "docket",
  store: "file",
  turns,
  warmup: runOf(perCall[0] ?? 0, turns),
  runs: perCall.slice(1).map((us) => runOf(us, turns)),
  maxRssBytes: 0,
  liveHeapBytes: 0,
});

describe("bench/loop's warm-up part", () => {
  it("counts the warm-up as run 1 and takes each span's median over every process", () => {
    const turns = 10;
    const spans = [
      { from: 1, to: 1 },
      { from: 2, to: 3 },
      { from: 4, to: 6 },
    ];
    const figures = spanCpuPerCall(
      [report([900, 300, 310, 80, 90, 70], turns), report([800, 290, 330, 60, 100, 75], turns)],
      turns,
      spans,
    );
    expect(figures.map((f) => Math.round(f.cpuUs))).toEqual([850, 305, 77.5].map(Math.round));
    expect(figures.map((f) => f.span)).toEqual(spans);
  });

  it("leaves out a span past the processes' last run", () => {
    const figures = spanCpuPerCall([report([500, 100], 3)], 3, WARMUP_SPANS);
    expect(figures.map((f) => f.span.from)).toEqual([1, 2]);
    expect(figures[1]?.cpuUs).toBeCloseTo(100);
  });

  it("reads every run a worker made: the spans' last run is its warm-up plus its timed runs", async () => {
    const runs = Math.max(...WARMUP_SPANS.map((span) => span.to));
    const { stdout } = await run(process.execPath, [
      "--import",
      tsx,
      worker,
      "docket",
      "memory",
      "1",
      String(runs - 1),
    ]);
    const parsed = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as WorkerReport;
    const figures = spanCpuPerCall([parsed], 1, WARMUP_SPANS);
    expect(figures.map((f) => f.span)).toEqual(WARMUP_SPANS);
    for (const { cpuUs } of figures) expect(cpuUs).toBeGreaterThan(0);
  });
});
