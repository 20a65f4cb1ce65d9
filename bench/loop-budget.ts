import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { measureReadCallFloor } from "./commit-floor.js";
import { type CpuProfile, layerShares } from "./loop-profile.js";
import { aiSdkSystem, docketSystem, type LoopSystem } from "./loop-systems.js";
import { CALLS_PER_TURN, workloadModel, workloadScript } from "./loop-workload.js";

/** Layers of a profile that are not docket's own code: the bench's driver, GC, the event loop. */
const NOT_DOCKET = new Set(["store", "bench", "gc", "other"]);

/** One round's figures: CPU µs a call of each system, and docket's profile split. */
export interface BudgetRound {
  readonly aiSdkUs: number;
  readonly docketUs: number;
  /** Share of docket's samples by layer (`layerShares`), summing to 1. */
  readonly shares: ReadonlyMap<string, number>;
}

/** What a read target leaves docket's store in one round, against the read call's floor. */
export interface StoreBudget {
  /** docket's CPU a call outside its store: every other layer, the bench's and GC's included. */
  readonly restUs: number;
  /** Only docket's own layers outside the store (loop, checkpoint, policy, …): the least rest. */
  readonly ownRestUs: number;
  /** What the target allows docket's whole call: `ratio` times the AI SDK's. */
  readonly targetUs: number;
  /** What the target leaves the store when the rest costs its least (`ownRestUs`). */
  readonly leftUs: number;
  /** What the target leaves the store beside the whole rest (`restUs`), as ADR 0078 counted. */
  readonly leftBesideRestUs: number;
  /** True when even a store at the floor, beside docket's own rest, would miss the target. */
  readonly belowFloor: boolean;
}

/**
 * What a read target (docket's CPU a call at most `ratio` times the AI SDK's) leaves the store in
 * one round, and whether that is less than the least a durable trail of read calls costs
 * (`floorUs`, from `measureReadCallFloor`). The split is of profile samples, so it is an
 * estimate; the verdict takes the rest at its least, which favours docket.
 *
 * @example
 * ```ts
 * const budget = storeBudget(
 *   { aiSdkUs: 64, docketUs: 80, shares: new Map([["store", 0.7], ["loop", 0.3]]) },
 *   { ratio: 0.5, floorUs: 16 },
 * );
 * budget.leftUs; // 32 - 24 = 8 µs, below the 16 µs floor
 * ```
 */
export function storeBudget(
  round: BudgetRound,
  { ratio, floorUs }: { ratio: number; floorUs: number },
): StoreBudget {
  let store = 0;
  let own = 0;
  for (const [layer, share] of round.shares) {
    if (layer === "store") store += share;
    else if (!NOT_DOCKET.has(layer)) own += share;
  }
  const restUs = round.docketUs * (1 - store);
  const ownRestUs = round.docketUs * own;
  const targetUs = ratio * round.aiSdkUs;
  const leftUs = targetUs - ownRestUs;
  const leftBesideRestUs = targetUs - restUs;
  return { restUs, ownRestUs, targetUs, leftUs, leftBesideRestUs, belowFloor: leftUs < floorUs };
}

/** The read targets of issue 38: docket at most the AI SDK at 10 turns, half of it at 100. */
const TARGETS: readonly { turns: number; ratio: number }[] = [
  { turns: 10, ratio: 1 },
  { turns: 100, ratio: 0.5 },
];

/**
 * `DOCKET_BENCH_LOOP=budget npm run bench loop`: for each read target, warm code in one process,
 * rounds interleaved with the AI SDK, CPU a call of each system; docket's store share from a
 * profiled run of its own (the profiler's cost is kept out of the figures); what the target
 * leaves the store; and the read call's floor measured in the same minute. It measures the
 * reason a read target is out of reach of any store, rather than arguing it (ADR 0078).
 */
export async function benchLoopBudget({
  rounds = 3,
  warmupRuns = 10,
  calls = 6000,
}: {
  rounds?: number;
  warmupRuns?: number;
  /** Calls measured per system and round (whole runs). */
  calls?: number;
} = {}): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  console.log(
    `bench/loop budget: what the read targets leave docket's store, warm code, ${rounds} rounds interleaved with the AI SDK (load ${load()})`,
  );
  const dir = mkdtempSync(`${tmpdir()}/docket-bench-budget-`);
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    for (const { turns, ratio } of TARGETS) {
      const docket = await docketSystem({ store: "file", dir: mkdtempSync(`${dir}/t${turns}-`) });
      const sdk = await aiSdkSystem();
      const runs = Math.max(2, Math.round(calls / (turns * CALLS_PER_TURN)));
      const perCall = async (system: LoopSystem): Promise<number> => {
        const cpu = process.cpuUsage();
        for (let i = 0; i < runs; i += 1)
          await system.run(workloadModel(workloadScript(turns)).model, turns);
        const used = process.cpuUsage(cpu);
        return (used.user + used.system) / (runs * turns * CALLS_PER_TURN);
      };
      for (let i = 0; i < warmupRuns; i += 1) {
        await docket.run(workloadModel(workloadScript(turns)).model, turns);
        await sdk.run(workloadModel(workloadScript(turns)).model, turns);
      }
      for (let round = 0; round < rounds; round += 1) {
        const aiSdkUs = await perCall(sdk);
        const docketUs = await perCall(docket);
        await session.post("Profiler.start");
        await perCall(docket);
        const { profile } = await session.post("Profiler.stop");
        const shares = layerShares(profile as unknown as CpuProfile);
        const floorUs = await measureReadCallFloor();
        const budget = storeBudget({ aiSdkUs, docketUs, shares }, { ratio, floorUs });
        const us = (value: number) => value.toFixed(1);
        console.log(
          `  ${String(turns).padStart(3)} turns, target ${ratio}x: AI SDK ${us(aiSdkUs)} µs, docket ${us(docketUs)} µs (store ${us(docketUs - budget.restUs)}, rest ${us(budget.restUs)}, of it docket's own ${us(budget.ownRestUs)}); the target ${us(budget.targetUs)} µs leaves the store ${us(budget.leftUs)} µs (${us(budget.leftBesideRestUs)} beside the whole rest); the read call's floor ${us(floorUs)} µs: ${budget.belowFloor ? "below the floor, out of reach of any store" : "above the floor"}`,
        );
      }
      await docket.close();
    }
  } finally {
    session.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`  load average at the end ${load()}`);
}
