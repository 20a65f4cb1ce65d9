import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { docketSystem } from "./loop-systems.js";
import { CALLS_PER_TURN, workloadModel, workloadScript } from "./loop-workload.js";

/** The parts of a V8 CPU profile this bench reads (Profiler.stop's `profile`). */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly callFrame: { readonly functionName: string; readonly url: string };
    readonly children?: readonly number[];
  }[];
  readonly samples: readonly number[];
}

/** Where docket's own code lives: `src/<layer>/…` (or a bench file), in a source or build path. */
const OWN_FILE = /\/(src|bench)\/([^/]+?)(?:\.js|\.ts)?(?:\/|$)/;

/**
 * Share of a CPU profile's samples by layer: each sample goes to the nearest frame of docket's
 * own code on its stack (`store`, `checkpoint`, `loop`, …, or `bench` for the fake model and the
 * driver), so a library, a Node built-in or a helper of `src/shared` counts for the layer that
 * called it; `gc` is the garbage collector; what has no docket frame at all is `other` (the
 * event loop, promise jobs).
 *
 * @example
 * ```ts
 * const shares = layerShares(profile); // Map { "store" => 0.51, "loop" => 0.09, … }
 * ```
 */
export function layerShares(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  const layerOf = new Map<number, string>();
  const resolve = (id: number): string => {
    const known = layerOf.get(id);
    if (known !== undefined) return known;
    const frame = byId.get(id)?.callFrame;
    const url = frame?.url ?? "";
    const own = url.includes("/node_modules/") ? null : url.match(OWN_FILE);
    let layer: string;
    // src/shared holds helpers (hashing, canonical JSON): they count for the layer calling them.
    if (own && own[2] !== "shared") layer = own[1] === "bench" ? "bench" : (own[2] as string);
    else if (frame?.functionName === "(garbage collector)") layer = "gc";
    else {
      const up = parent.get(id);
      layer = up === undefined ? "other" : resolve(up);
    }
    layerOf.set(id, layer);
    return layer;
  };
  const counts = new Map<string, number>();
  for (const sample of profile.samples) {
    const layer = resolve(sample);
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
  }
  const total = profile.samples.length || 1;
  return new Map(
    [...counts].sort((a, b) => b[1] - a[1]).map(([layer, n]) => [layer, n / total] as const),
  );
}

/**
 * Where docket's CPU goes per call, by layer, once the code is warm: the loop workload (N turns
 * of 10 no-op calls, a fake model that yields once per call, SQLite file store, audit on) run in
 * this process under the V8 sampling profiler (node:inspector, as `--cpu-prof` samples), after
 * warm-up runs. The split is of the profile's samples (main thread, wall while on CPU or in a
 * synchronous call such as an fsync), scaled by the runs' CPU time per call: an estimate that
 * names the layer to work on, not a figure to hold a target to.
 */
export async function benchLoopProfile({
  lengths = [10, 100],
  warmupRuns = 20,
  calls = 5000,
}: {
  lengths?: readonly number[];
  warmupRuns?: number;
  /** Calls profiled at each run length (whole runs). */
  calls?: number;
} = {}): Promise<void> {
  console.log(
    `bench/loop profile: docket's CPU per call by layer, warm code (${warmupRuns} runs first), sampled in process; each sample goes to the nearest docket frame on its stack`,
  );
  const dir = mkdtempSync(`${tmpdir()}/docket-bench-profile-`);
  const session = new Session();
  session.connect();
  try {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 100 });
    for (const turns of lengths) {
      const docket = await docketSystem({ store: "file", dir: mkdtempSync(`${dir}/t${turns}-`) });
      const run = () => docket.run(workloadModel(workloadScript(turns)).model, turns);
      for (let i = 0; i < warmupRuns; i += 1) await run();
      const runs = Math.max(1, Math.round(calls / (turns * CALLS_PER_TURN)));
      await session.post("Profiler.start");
      const cpu = process.cpuUsage();
      for (let i = 0; i < runs; i += 1) await run();
      const used = process.cpuUsage(cpu);
      const { profile } = await session.post("Profiler.stop");
      await docket.close();
      const perCall = (used.user + used.system) / (runs * turns * CALLS_PER_TURN);
      const shares = [...layerShares(profile as unknown as CpuProfile)]
        .filter(([, share]) => share >= 0.005)
        .map(
          ([layer, share]) =>
            `${layer} ${(share * 100).toFixed(0)}% (${(share * perCall).toFixed(1)})`,
        );
      console.log(
        `  ${String(turns).padStart(4)} turns: ${perCall.toFixed(1)} µs CPU a call; by layer, % of samples (µs): ${shares.join(", ")}`,
      );
    }
  } finally {
    session.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
}
