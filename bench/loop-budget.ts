import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadavg, tmpdir } from "node:os";
import { measureCpu } from "./cpu-split.js";
import { type CpuProfile, layerShares } from "./loop-profile.js";
import { aiSdkSystem, docketSystem, type LoopSystem } from "./loop-systems.js";
import { CALLS_PER_TURN, workloadModel, workloadScript } from "./loop-workload.js";
import { LEAN_LAYOUT, measureReadCallFloor, TODAYS_LAYOUT } from "./read-floor.js";
import { median } from "./stats.js";

/** Layers of a profile that are not docket's own code: the bench's driver, GC, the event loop. */
const NOT_DOCKET = new Set(["store", "bench", "gc", "other"]);

/** One round's figures: CPU µs a call of each system, and docket's profile split. */
export interface BudgetRound {
  readonly aiSdkUs: number;
  /** docket's CPU a call, every thread of the process. */
  readonly docketUs: number;
  /** Of it, the main thread's: what the profile samples (default: all of it). */
  readonly mainThreadUs?: number;
  /** Share of docket's main-thread samples by layer (`layerShares`), summing to 1. */
  readonly shares: ReadonlyMap<string, number>;
}

/** What a read target leaves docket's store in one round, against the read call's floor. */
export interface StoreBudget {
  /**
   * docket's CPU a call outside its store: every other layer, the bench's, GC's and the event
   * loop's included, and the work of V8's other threads (its compilers, GC helpers).
   */
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
 * (`floorUs`, from `measureReadCallFloor`). The split is of the main thread's profile samples,
 * so the shares scale the main thread's CPU; it is an estimate, and the verdict takes the rest
 * at its least, which favours docket.
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
  const main = round.mainThreadUs ?? round.docketUs;
  const restUs = round.docketUs - main * store;
  const ownRestUs = main * own;
  const targetUs = ratio * round.aiSdkUs;
  const leftUs = targetUs - ownRestUs;
  const leftBesideRestUs = targetUs - restUs;
  return { restUs, ownRestUs, targetUs, leftUs, leftBesideRestUs, belowFloor: leftUs < floorUs };
}

const us = (value: number) => value.toFixed(1);

/** The read targets of issue 38: docket at most the AI SDK at 10 turns, half of it at 100. */
const TARGETS: readonly { turns: number; ratio: number }[] = [
  { turns: 10, ratio: 1 },
  { turns: 100, ratio: 0.5 },
];

/**
 * `DOCKET_BENCH_LOOP=budget npm run bench loop`: for each read target, warm code in one process
 * (`warmupCalls` of each system first), rounds interleaved with the AI SDK, CPU a call of each
 * system; docket's store share from a profiled run of its own (the profiler's cost is kept out
 * of the figures); what the target leaves the store; and the read call's floor in today's row
 * layout and in a leaner one, measured in the same round (ADR 0085). Below today's floor, no
 * store of today's layout can meet the target with the rest of docket as it is.
 */
export async function benchLoopBudget({
  rounds = 5,
  warmupCalls = 20_000,
  calls = 6000,
}: {
  rounds?: number;
  /** Calls of each system run before any round (whole runs): V8 compiles for longer than 10. */
  warmupCalls?: number;
  /** Calls measured per system and round (whole runs). */
  calls?: number;
} = {}): Promise<void> {
  const load = () =>
    loadavg()
      .map((l) => l.toFixed(2))
      .join(" ");
  console.log(
    `bench/loop budget: what the read targets leave docket's store, warm code, ${rounds} rounds interleaved with the AI SDK, each line one round, then the medians (load ${load()})`,
  );
  const dir = mkdtempSync(`${tmpdir()}/docket-bench-budget-`);
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    for (const { turns, ratio } of TARGETS) {
      const docketLoop = await docketSystem({
        store: "file",
        dir: mkdtempSync(`${dir}/t${turns}-`),
      });
      const sdk = await aiSdkSystem();
      const runs = Math.max(2, Math.round(calls / (turns * CALLS_PER_TURN)));
      const perCall = async (system: LoopSystem): Promise<{ all: number; main: number }> => {
        const split = await measureCpu(async () => {
          for (let i = 0; i < runs; i += 1)
            await system.run(workloadModel(workloadScript(turns)).model, turns);
        });
        const measured = runs * turns * CALLS_PER_TURN;
        const all = (split.cpuMs * 1000) / measured;
        const main =
          split.mainThreadCpuMs === undefined ? all : (split.mainThreadCpuMs * 1000) / measured;
        return { all, main };
      };
      const warmupRuns = Math.max(1, Math.round(warmupCalls / (turns * CALLS_PER_TURN)));
      for (let i = 0; i < warmupRuns; i += 1) {
        await docketLoop.run(workloadModel(workloadScript(turns)).model, turns);
        await sdk.run(workloadModel(workloadScript(turns)).model, turns);
      }
      const left: number[] = [];
      const leftWhole: number[] = [];
      const floors: number[] = [];
      const leanFloors: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        const aiSdkUs = (await perCall(sdk)).all;
        const docket = await perCall(docketLoop);
        await session.post("Profiler.start");
        await perCall(docketLoop);
        const { profile } = await session.post("Profiler.stop");
        const shares = layerShares(profile as unknown as CpuProfile);
        const floorUs = await measureReadCallFloor(TODAYS_LAYOUT);
        const leanFloorUs = await measureReadCallFloor(LEAN_LAYOUT);
        const budget = storeBudget(
          { aiSdkUs, docketUs: docket.all, mainThreadUs: docket.main, shares },
          { ratio, floorUs },
        );
        left.push(budget.leftUs);
        leftWhole.push(budget.leftBesideRestUs);
        floors.push(floorUs);
        leanFloors.push(leanFloorUs);
        const verdict = budget.belowFloor
          ? `below it: no store of today's layout meets the target; ${budget.leftUs < leanFloorUs ? "below" : "above"} the lean layout's`
          : "above it";
        console.log(
          `  ${String(turns).padStart(3)} turns, target ${ratio}x: AI SDK ${us(aiSdkUs)} µs, docket ${us(docket.all)} µs (store ${us(docket.all - budget.restUs)}, rest ${us(budget.restUs)}, of it docket's own ${us(budget.ownRestUs)}); the target ${us(budget.targetUs)} µs leaves the store ${us(budget.leftUs)} µs (${us(budget.leftBesideRestUs)} beside the whole rest); the read call's floor ${us(floorUs)} µs in today's layout, ${us(leanFloorUs)} in a lean one: ${verdict}`,
        );
      }
      const below = (limits: readonly number[], budgets: readonly number[]) =>
        `${budgets.filter((l, i) => l < (limits[i] ?? 0)).length}/${rounds}`;
      console.log(
        `  ${String(turns).padStart(3)} turns, medians: the target leaves the store ${us(median(left))} µs beside docket's own rest, ${us(median(leftWhole))} beside the whole rest; the floor ${us(median(floors))} µs in today's layout (rounds below it: ${below(floors, left)} and ${below(floors, leftWhole)}), ${us(median(leanFloors))} µs in a lean one (${below(leanFloors, left)} and ${below(leanFloors, leftWhole)})`,
      );
      await docketLoop.close();
    }
  } finally {
    session.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`  load average at the end ${load()}`);
}
