// First: the bench's tool has a terse description; its lint warning is not a figure.
import "../src/cli/quiet-tool-lint.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createHarness } from "../src/loop/create-harness.js";
import { createPolicyEngine } from "../src/policy/policy-engine.js";
import { openStore } from "../src/store/open-store.js";
import type { Store } from "../src/store/store.js";
import { defineTool } from "../src/tool/define-tool.js";
import {
  CALLS_PER_TURN,
  CLOSING_TEXT,
  WORKLOAD_PROMPT,
  type WorkloadModel,
  workloadModel,
  workloadScript,
} from "./loop-workload.js";

/** One run of the workload, as the worker reports it. */
export interface WorkerRun {
  readonly wallMs: number;
  /** This process's user + system CPU time during the run: steadier on a shared machine. */
  readonly cpuMs: number;
  /** Time inside the fake model's doGenerate / doStream. */
  readonly modelMs: number;
}

/** What a worker process prints as its last line, in JSON. */
export interface WorkerReport {
  readonly system: "docket" | "ai-sdk";
  readonly store: "file" | "memory" | "none";
  readonly turns: number;
  /** The first run in the process, not counted in the figures. */
  readonly warmup: WorkerRun;
  readonly runs: readonly WorkerRun[];
  /** Peak resident set size of the process, in bytes. */
  readonly maxRssBytes: number;
  readonly heapUsedBytes: number;
}

const input = z.object({ n: z.number() });
const noopHandler = ({ n }: { n: number }) => n;

type RunWorkload = (workload: WorkloadModel, turns: number) => Promise<void>;

async function docketRunner(storeKind: "file" | "memory", dir: string): Promise<RunWorkload> {
  const store: Store = await openStore(
    storeKind === "memory" ? ":memory:" : `sqlite:${join(dir, "docket.db")}`,
  );
  const policy = await createPolicyEngine({
    layers: [{ name: "project", rules: [{ decision: "allow", tool: "noop" }] }],
  });
  const noop = defineTool({
    name: "noop",
    description: "Does nothing.",
    input,
    writes: false,
    handler: noopHandler,
  });
  return async ({ model }, turns) => {
    const calls = turns * CALLS_PER_TURN;
    const harness = createHarness({
      model,
      tools: [noop],
      policy,
      store,
      // Above the work to do: reaching a limit ends a run before its closing text turn.
      limits: { maxTurns: turns + 1, maxToolCallsPerRun: calls + 1 },
    });
    const result = await harness.run(WORKLOAD_PROMPT);
    if (result.status !== "completed" || result.text !== CLOSING_TEXT)
      throw new Error(`docket's run ended ${result.status}: ${result.text}`);
  };
}

async function aiSdkRunner(): Promise<RunWorkload> {
  const { generateText, stepCountIs, tool } = await import("ai");
  return async ({ model }, turns) => {
    let executed = 0;
    const noop = tool({
      description: "Does nothing.",
      inputSchema: input,
      execute: (args: { n: number }) => {
        executed += 1;
        return noopHandler(args);
      },
    });
    const result = await generateText({
      model,
      tools: { noop },
      prompt: WORKLOAD_PROMPT,
      stopWhen: stepCountIs(turns + 1),
    });
    if (result.text !== CLOSING_TEXT || executed !== turns * CALLS_PER_TURN)
      throw new Error(`the AI SDK's run ended "${result.text}" after ${executed} calls`);
  };
}

async function timedRun(run: RunWorkload, turns: number): Promise<WorkerRun> {
  // Built before the clock starts: the replies are the model's, not the system's.
  const workload = workloadModel(workloadScript(turns));
  const start = performance.now();
  const cpu = process.cpuUsage();
  await run(workload, turns);
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000, modelMs: workload.spentMs() };
}

/**
 * `node loop-worker.js SYSTEM STORE TURNS RUNS`: one warm-up run of the workload then RUNS timed
 * ones in this process, and a {@link WorkerReport} as the last line of stdout. SYSTEM is `docket`
 * or `ai-sdk`; STORE is `file` or `memory` (docket) or `none`. RUNS 0 measures the first run only
 * (the memory figures).
 */
async function main(argv: readonly string[]): Promise<void> {
  const [system, store, turnsArg, runsArg] = argv;
  const turns = Number(turnsArg);
  const runs = Number(runsArg);
  if (system !== "docket" && system !== "ai-sdk") throw new Error(`unknown system ${system}`);
  if (store !== "file" && store !== "memory" && store !== "none")
    throw new Error(`unknown store ${store}`);
  if (!Number.isInteger(turns) || turns < 1 || !Number.isInteger(runs) || runs < 0)
    throw new Error("TURNS must be a positive integer, RUNS a non-negative one");
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-peer-"));
  try {
    const run =
      system === "docket"
        ? await docketRunner(store === "memory" ? "memory" : "file", dir)
        : await aiSdkRunner();
    const warmup = await timedRun(run, turns);
    const timed: WorkerRun[] = [];
    for (let i = 0; i < runs; i += 1) timed.push(await timedRun(run, turns));
    const report: WorkerReport = {
      system,
      store,
      turns,
      warmup,
      runs: timed,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      heapUsedBytes: process.memoryUsage().heapUsed,
    };
    console.log(JSON.stringify(report));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main(process.argv.slice(2));
