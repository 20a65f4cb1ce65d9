import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./stats.js";

/** Run lengths, in turns of CALLS_PER_TURN calls: what short runs look like. */
const LENGTHS = [1, 3, 10] as const;
const CALLS_PER_TURN = 10;
/** Fresh processes per run length; they take turns, so a busy moment hits every length alike. */
const PROCESSES = 7;
/** In each process: the cold run, then the issue's method (one warm-up run, five timed runs). */
const LATER_RUNS = 6;

/** What one child process measured. */
interface ChildReport {
  readonly turns: number;
  /** From process start to the bench's first line: module loading (node, docket, zod, SQLite). */
  readonly loadMs: number;
  /** Policy engine, store opened, harness created: before the first run starts. */
  readonly setupMs: number;
  /** Per call, the first run of the process: wall time outside the model stub, and CPU time. */
  readonly coldWallUs: number;
  readonly coldCpuUs: number;
  /** The first batch of the first run alone, per call (the first ten calls of the process). */
  readonly firstBatchUs: number;
  /** Per call, median of the runs after a warm-up run (the issue's method against the AI SDK). */
  readonly warmWallUs: number;
  readonly warmCpuUs: number;
}

/** The child: imports docket only now, so its load time is part of what is measured. */
async function child(turns: number, dir: string): Promise<void> {
  const loadStart = performance.now();
  const [{ z }, { createHarness }, { timedModel }, { createPolicyEngine }, { openStore }] =
    await Promise.all([
      import("zod"),
      import("../src/loop/create-harness.js"),
      import("./timed-model.js"),
      import("../src/policy/policy-engine.js"),
      import("../src/store/open-store.js"),
      import("../src/cli/quiet-tool-lint.js"),
    ]);
  const { defineTool } = await import("../src/tool/define-tool.js");
  const loadMs = performance.now();
  void loadStart;

  const noop = defineTool({
    name: "noop",
    description: "Does nothing.",
    input: z.object({ n: z.number() }),
    writes: false,
    // FIRST_CALLS_HANDLER=async: a handler that returns a promise, as most real tools do.
    handler:
      process.env.FIRST_CALLS_HANDLER === "async"
        ? async ({ n }: { n: number }) => n
        : ({ n }: { n: number }) => n,
  });
  const policy = await createPolicyEngine({
    layers: [{ name: "project", rules: [{ decision: "allow", tool: "noop" }] }],
  });
  const calls = turns * CALLS_PER_TURN;

  const oneRun = async (index: number) => {
    const store = await openStore(`sqlite:${join(dir, `run-${index}.db`)}`);
    const script = {
      source: "bench/first-calls",
      turns: [
        ...Array.from({ length: turns }, (_, t) => ({
          text: `Turn ${t}.`,
          toolCalls: Array.from({ length: CALLS_PER_TURN }, (_, c) => ({
            id: `call_${t}_${c}`,
            name: "noop",
            arguments: `{"n":${t * CALLS_PER_TURN + c}}`,
          })),
        })),
        { text: "All done.", toolCalls: [] },
      ],
    };
    // The gap between the first two model requests is the first batch; the model's own time (a
    // yield as a network reply gives comes first, outside it) is left out of the figures.
    const { model, spentMs, marks } = timedModel(script);
    const harness = createHarness({
      model,
      tools: [noop],
      policy,
      store,
      limits: { maxTurns: turns + 1, maxToolCallsPerRun: calls + 1 },
    });
    const ready = performance.now();
    const cpu = process.cpuUsage();
    const result = await harness.run("Run the no-ops.");
    const wallMs = performance.now() - ready;
    const used = process.cpuUsage(cpu);
    if (result.status !== "completed") throw new Error(`bench run ended ${result.status}`);
    await store.close();
    const firstBatchMs = (marks[2] ?? 0) - (marks[1] ?? 0);
    return {
      ready,
      wallUs: ((wallMs - spentMs()) * 1000) / calls,
      cpuUs: (used.user + used.system) / calls,
      firstBatchUs: (firstBatchMs * 1000) / CALLS_PER_TURN,
    };
  };

  const cold = await profiled("cold", () => oneRun(0));
  const later = await profiled("warm", async () => {
    const runs = [];
    for (let run = 1; run <= LATER_RUNS; run += 1) runs.push(await oneRun(run));
    return runs;
  });
  const timed = later.slice(1);
  const report: ChildReport = {
    turns,
    loadMs,
    setupMs: cold.ready - loadMs,
    coldWallUs: cold.wallUs,
    coldCpuUs: cold.cpuUs,
    firstBatchUs: cold.firstBatchUs,
    warmWallUs: median(timed.map((r) => r.wallUs)),
    warmCpuUs: median(timed.map((r) => r.cpuUs)),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/**
 * With FIRST_CALLS_PROFILE=cold (or warm) and FIRST_CALLS_PROFILE_FILE=x.cpuprofile, the cold run
 * (or the runs after it) is profiled, sampling every 50 µs, without module loading in the way.
 * Mind that a profiler logs every function V8 compiles: a cold run's figures are inflated.
 */
async function profiled<T>(phase: "cold" | "warm", run: () => Promise<T>): Promise<T> {
  const file = process.env.FIRST_CALLS_PROFILE_FILE;
  if (!file || process.env.FIRST_CALLS_PROFILE !== phase) return run();
  const { Session } = await import("node:inspector/promises");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 50 });
  await session.post("Profiler.start");
  const value = await run();
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  return value;
}

function runChild(script: string, turns: number, dir: string): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, "--child", String(turns), dir], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code !== 0) return reject(new Error(`bench/first-calls child exited ${code}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "") as ChildReport);
      } catch (error) {
        reject(error);
      }
    });
  });
}

/**
 * The first calls of a process: runs of 1, 3 and 10 turns of 10 no-op zod calls, an allow
 * policy and the SQLite file store, each length in fresh child processes (taking turns), median
 * of PROCESSES. Per call: the process's first run (cold: V8 not warmed, statement caches empty,
 * modules compiled lazily), its first batch alone, and the median of five runs after one warm-up
 * run (the method the issue compares with the AI SDK). Time in the model stub is left out.
 */
export async function benchFirstCalls(): Promise<void> {
  const script = fileURLToPath(import.meta.url);
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-first-"));
  try {
    const reports = new Map<number, ChildReport[]>(LENGTHS.map((turns) => [turns, []]));
    for (let round = 0; round < PROCESSES; round += 1) {
      for (const turns of LENGTHS) {
        const runDir = mkdtempSync(join(dir, `t${turns}-`));
        reports.get(turns)?.push(await runChild(script, turns, runDir));
      }
    }
    const kind = process.env.FIRST_CALLS_HANDLER === "async" ? "async" : "sync";
    console.log(
      `bench/first-calls: runs of ${LENGTHS.join(", ")} turns x ${CALLS_PER_TURN} no-op zod calls (${kind} handler), allow policy, SQLite file store, median of ${PROCESSES} fresh processes each`,
    );
    const f = (value: number) => value.toFixed(1).padStart(7);
    console.log(
      "  turns  load ms  setup ms  first batch µs/call  cold run µs/call (CPU)  warm runs µs/call (CPU)",
    );
    for (const turns of LENGTHS) {
      const list = reports.get(turns) ?? [];
      const m = (pick: (r: ChildReport) => number) => median(list.map(pick));
      console.log(
        `  ${String(turns).padStart(5)}  ${f(m((r) => r.loadMs))}  ${f(m((r) => r.setupMs))}   ${f(m((r) => r.firstBatchUs))}              ${f(m((r) => r.coldWallUs))} (${f(m((r) => r.coldCpuUs)).trim()})       ${f(m((r) => r.warmWallUs))} (${f(m((r) => r.warmCpuUs)).trim()})`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--child") {
  await child(Number(process.argv[3]), process.argv[4] ?? tmpdir());
}
