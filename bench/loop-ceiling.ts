import { loadAverage } from "./built-cli.js";
import { mainThreadShare } from "./cpu-split.js";
import type { WorkerReport } from "./loop-worker.js";
import { CALLS_PER_TURN } from "./loop-workload.js";
import { runWorker } from "./run-worker.js";
import { median } from "./stats.js";

/** The read targets of issue 38: docket's CPU a call at most this times the AI SDK's. */
const READ_TARGET: Record<number, number> = { 10: 1, 100: 0.5 };
/** Timed runs a process, after its warm-up run: the `peer` part's window (runs 2 to 6). */
const TIMED_RUNS = 5;

/** One round at one run length: the CPU a call of each system, each a fresh process. */
export interface CeilingRound {
  readonly aiSdkUs: number;
  /** docket with its audit trail (SQLite file store). */
  readonly docketUs: number;
  /** docket with a store that keeps nothing per call (`untrackedStore`). */
  readonly untrackedUs: number;
}

/** The systems a round runs, in the order of their figures. */
const SYSTEMS = [
  "ai-sdk",
  "docket",
  "docket-untracked",
  "ai-sdk-durable",
  "docket-write",
  "docket-write-untracked",
  "docket-unwritten",
  "docket-unwritten-one-event",
  "docket-write-unwritten",
  "docket-lean",
  "docket-write-lean",
  "docket-log",
  "docket-write-log",
] as const;

/** What a target leaves any audit trail in one round. */
export interface TrailCeiling {
  /** What the target allows docket's whole call: `ratio` times the AI SDK's. */
  readonly targetUs: number;
  /** The target less what docket costs beside a trail that costs nothing. */
  readonly leftForTrailUs: number;
  /** What docket's trail costs today: docket with it, less docket without. */
  readonly trailUs: number;
}

/**
 * What a target of `ratio` times the AI SDK's CPU a call leaves an audit trail in one round:
 * docket's loop and checkpoint cost what they cost beside a store that keeps nothing per call,
 * so only the difference can pay for a trail. Negative: no trail fits, however it is stored.
 *
 * @example
 * ```ts
 * trailCeiling({ aiSdkUs: 100, docketUs: 160, untrackedUs: 104 }, 1);
 * // { targetUs: 100, leftForTrailUs: -4, trailUs: 56 }
 * ```
 */
export function trailCeiling(round: CeilingRound, ratio: number): TrailCeiling {
  const targetUs = round.aiSdkUs * ratio;
  return {
    targetUs,
    leftForTrailUs: targetUs - round.untrackedUs,
    trailUs: round.docketUs - round.untrackedUs,
  };
}

/** docket with a write tool whose store commits nothing, beside the durable peer's own trail. */
export interface UnwrittenWrite {
  /** What the peer's hand-made trail costs it: the durable peer less the AI SDK alone. */
  readonly peerTrailUs: number;
  /** docket with a write tool and nothing committed, plus the peer's own trail. */
  readonly withPeerTrailUs: number;
  /** That, over the durable peer's CPU: above 1, even a trail as cheap as the peer's misses. */
  readonly ratio: number;
}

/**
 * What docket with a write tool would cost if its durable writes cost what the durable peer's
 * cost it (ADR 0099): docket's call handling with every commit skipped, plus the peer's own
 * trail. Docket's trail records more than the peer's (four events, the calls ledger, the chain
 * head), so this is the least a write call can cost with today's call handling.
 *
 * @example
 * ```ts
 * unwrittenWrite({ aiSdkUs: 200, durableUs: 290, unwrittenUs: 250 });
 * // { peerTrailUs: 90, withPeerTrailUs: 340, ratio: 1.1724… }
 * ```
 */
export function unwrittenWrite({
  aiSdkUs,
  durableUs,
  unwrittenUs,
}: {
  aiSdkUs: number;
  durableUs: number;
  unwrittenUs: number;
}): UnwrittenWrite {
  const peerTrailUs = durableUs - aiSdkUs;
  const withPeerTrailUs = unwrittenUs + peerTrailUs;
  return { peerTrailUs, withPeerTrailUs, ratio: withPeerTrailUs / durableUs };
}

/** A system the part runs. */
type SystemName = (typeof SYSTEMS)[number];

/** One round's CPU µs a call, by system. */
export type CeilingFigures = Record<SystemName, number>;

/**
 * A round's figures, measured in the order of the part's systems, by system name: the lines
 * read them by name, never by position.
 *
 * @example
 * ```ts
 * byName([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])["docket-write-unwritten"]; // 9
 * ```
 */
export function byName(us: readonly number[]): CeilingFigures {
  return Object.fromEntries(SYSTEMS.map((system, at) => [system, us[at] ?? 0])) as CeilingFigures;
}

/** CPU µs a call of one worker process: the median of its timed runs. */
function perCall(report: WorkerReport): number {
  return median(report.runs.map((run) => (run.cpuMs * 1000) / (report.turns * CALLS_PER_TURN)));
}

/**
 * `DOCKET_BENCH_LOOP=ceiling npm run bench loop`: what the read targets leave any audit trail
 * (docs/adr/0095-the-read-targets-beside-a-free-trail.md). In the `peer` part's window (a fresh
 * process a system, one warm-up run, then five timed runs, the yielding fake model), rounds that
 * take in turn the AI SDK, docket with its trail, docket with a store that keeps nothing per call,
 * the durable peer, and docket with a write tool with and without its trail. Prints per run
 * length the medians, the ratios, what each target leaves a trail (the read targets beside the
 * AI SDK, the write target beside the durable peer), its spread over the rounds, and the rounds
 * in which docket beside a free trail already misses it. Then docket with its trail made as
 * today and every commit of it skipped (`unwrittenStore`, ADR 0099): with a read tool, with one
 * event a read call reaching the store, and with a write tool, that last beside the durable
 * peer with the peer's own trail added. Then docket with its trail kept by the leanest store of
 * the same promises (`leanTrailStore`, ADR 0100), with a read tool beside the AI SDK and with a
 * write tool beside the durable peer; and by one row of one table a commit (`logTrailStore`, ADR
 * 0102), the same two ways.
 */
export async function benchLoopCeiling({
  lengths = [3, 10, 100],
  rounds = 8,
}: {
  lengths?: readonly number[];
  rounds?: number;
} = {}): Promise<void> {
  const startLoad = loadAverage();
  console.log(
    `bench/loop ceiling: docket beside a store that keeps nothing per call (no event, no calls row, no transcript batch; the session's start and end kept), the AI SDK, docket with its trail, the durable peer and docket with a write tool (with and without its trail), docket with its trail made and never committed, docket with its trail kept by the leanest store of the same promises, and in one row of one table a commit; ${rounds} rounds of fresh processes, each 1 warm-up + ${TIMED_RUNS} timed runs of N turns x ${CALLS_PER_TURN} no-op calls; CPU µs a call (load average ${startLoad})`,
  );
  console.log(
    "  a read tool: turns  AI SDK   docket (ratio)   no trail (ratio) | trail today | target leaves a trail | rounds it leaves none",
  );
  const writeLines: string[] = [];
  const unwrittenLines: string[] = [];
  const writeUnwrittenLines: string[] = [];
  const leanLines: string[] = [];
  const logLines: string[] = [];
  const threadLines: string[] = [];
  for (const turns of lengths) {
    const measured: number[][] = [];
    // Each process's median share of its CPU on the main thread (ADR 0097), by system.
    const shares: (number | undefined)[][] = SYSTEMS.map(() => []);
    for (let round = 0; round < rounds; round += 1) {
      // Who goes first turns over each round, so none always runs right after another's exit.
      const us = SYSTEMS.map(() => 0);
      for (let i = 0; i < SYSTEMS.length; i += 1) {
        const at = (i + round) % SYSTEMS.length;
        const system = SYSTEMS[at] ?? "ai-sdk";
        const store = system.startsWith("ai-sdk") ? "none" : "file";
        const report = await runWorker(system, store, turns, TIMED_RUNS);
        us[at] = perCall(report);
        shares[at]?.push(mainThreadShare(report.runs));
      }
      measured.push(us);
    }
    const named = measured.map(byName);
    const mid = (pick: (figures: CeilingFigures) => number) => median(named.map(pick));
    const aiSdk = mid((f) => f["ai-sdk"]);
    const docket = mid((f) => f.docket);
    const untracked = mid((f) => f["docket-untracked"]);
    const durable = mid((f) => f["ai-sdk-durable"]);
    const docketWrite = mid((f) => f["docket-write"]);
    const writeUntracked = mid((f) => f["docket-write-untracked"]);
    // The CPU column split by the rounds' median share on the main thread: the parts add up.
    const split = SYSTEMS.map((system, at) => {
      const found = shares[at] ?? [];
      if (found.length === 0 || found.some((share) => share === undefined)) return undefined;
      const cpu = mid((f) => f[system]);
      const main = cpu * median(found.map((share) => share ?? 0));
      return `${system} ${main.toFixed(0)} + ${(cpu - main).toFixed(0)}`;
    });
    if (split.every((line) => line !== undefined)) {
      threadLines.push(`  ${String(turns).padStart(5)}: ${split.join(", ")}`);
    }
    const ratio = READ_TARGET[turns] ?? 1;
    const read = named.map((f) =>
      trailCeiling(
        { aiSdkUs: f["ai-sdk"], docketUs: f.docket, untrackedUs: f["docket-untracked"] },
        ratio,
      ),
    );
    // The write target: docket with a write tool at or below the durable peer, whose trail is
    // its own; docket's write trail gets what the peer's CPU leaves beside docket with the same
    // write tool and no trail.
    const write = named.map((f) =>
      trailCeiling(
        {
          aiSdkUs: f["ai-sdk-durable"],
          docketUs: f["docket-write"],
          untrackedUs: f["docket-write-untracked"],
        },
        1,
      ),
    );
    const none = (cs: TrailCeiling[]) => cs.filter((c) => c.leftForTrailUs <= 0).length;
    const middle = (cs: TrailCeiling[], key: "trailUs" | "leftForTrailUs") =>
      median(cs.map((c) => c[key])).toFixed(1);
    // What the target leaves, round by round: a median near 0 says little without its spread.
    const spread = (cs: TrailCeiling[]) => {
      const left = cs.map((c) => c.leftForTrailUs);
      return `${Math.min(...left).toFixed(0)} to ${Math.max(...left).toFixed(0)}`;
    };
    console.log(
      `  ${String(turns).padStart(5)} ${aiSdk.toFixed(1).padStart(10)} ${docket.toFixed(1).padStart(8)} (${(docket / aiSdk).toFixed(2)}x) ${untracked.toFixed(1).padStart(10)} (${(untracked / aiSdk).toFixed(2)}x) | ${middle(read, "trailUs").padStart(11)} | ${middle(read, "leftForTrailUs").padStart(9)} (${ratio}x, ${spread(read)}) | ${none(read)} of ${rounds}`,
    );
    writeLines.push(
      `  ${String(turns).padStart(5)} ${durable.toFixed(1).padStart(12)} ${docketWrite.toFixed(1).padStart(8)} (${(docketWrite / durable).toFixed(2)}x) ${writeUntracked.toFixed(1).padStart(10)} (${(writeUntracked / durable).toFixed(2)}x) | ${middle(write, "trailUs").padStart(17)} | ${middle(write, "leftForTrailUs").padStart(24)} (${spread(write)}) | ${none(write)} of ${rounds}`,
    );
    // ADR 0099: each figure with its rounds' ratios, and the rounds at or under the target.
    const ratios = (of: (f: CeilingFigures) => number, to: (f: CeilingFigures) => number) => {
      const each = named.map((f) => of(f) / to(f));
      return { median: median(each), low: Math.min(...each), high: Math.max(...each), each };
    };
    const shown = (r: ReturnType<typeof ratios>, limit: number) =>
      `${r.median.toFixed(2)}x (${r.low.toFixed(2)}-${r.high.toFixed(2)}, ${r.each.filter((v) => v <= limit).length} of ${rounds} at or under ${limit}x)`;
    // One system's median and its ratio to `to`, round by round.
    const cell = (system: SystemName, to: SystemName, limit: number) => {
      const us = mid((f) => f[system]).toFixed(1);
      const each = ratios(
        (f) => f[system],
        (f) => f[to],
      );
      return `${us.padStart(9)} ${shown(each, limit)}`;
    };
    unwrittenLines.push(
      `  ${String(turns).padStart(5)} ${aiSdk.toFixed(1).padStart(7)} ${cell("docket-unwritten", "ai-sdk", ratio)} ${cell("docket-unwritten-one-event", "ai-sdk", ratio)}`,
    );
    // Round by round, so the peer's trail and docket's figure come from the same minutes.
    const bounds = named.map((f) =>
      unwrittenWrite({
        aiSdkUs: f["ai-sdk"],
        durableUs: f["ai-sdk-durable"],
        unwrittenUs: f["docket-write-unwritten"],
      }),
    );
    const boundRatios = bounds.map((b) => b.ratio);
    const peerTrail = median(bounds.map((b) => b.peerTrailUs)).toFixed(1);
    const withPeerTrail = median(bounds.map((b) => b.withPeerTrailUs)).toFixed(1);
    const boundSpread = `${Math.min(...boundRatios).toFixed(2)}-${Math.max(...boundRatios).toFixed(2)}, ${boundRatios.filter((v) => v <= 1).length} of ${rounds} at or under 1x`;
    writeUnwrittenLines.push(
      `  ${String(turns).padStart(5)} ${aiSdk.toFixed(1).padStart(7)} ${durable.toFixed(1).padStart(8)} ${peerTrail.padStart(8)} ${cell("docket-write-unwritten", "ai-sdk-durable", 1)} ${withPeerTrail.padStart(9)} ${median(boundRatios).toFixed(2)}x (${boundSpread})`,
    );
    leanLines.push(
      `  ${String(turns).padStart(5)} ${aiSdk.toFixed(1).padStart(7)} ${cell("docket-lean", "ai-sdk", ratio)} ${durable.toFixed(1).padStart(8)} ${cell("docket-write-lean", "ai-sdk-durable", 1)}`,
    );
    logLines.push(
      `  ${String(turns).padStart(5)} ${aiSdk.toFixed(1).padStart(7)} ${cell("docket-log", "ai-sdk", ratio)} ${durable.toFixed(1).padStart(8)} ${cell("docket-write-log", "ai-sdk-durable", 1)}`,
    );
  }
  console.log(
    "  a write tool: turns  durable peer   docket-write (ratio)   no trail (ratio) | docket's write trail | the peer leaves a trail (1x) | rounds it leaves none",
  );
  for (const line of writeLines) console.log(line);
  // ADR 0099: the same calls with every commit of the trail skipped.
  console.log(
    "  every commit skipped, a read tool: turns  AI SDK  nothing committed (ratio, its rounds' spread, rounds at or under the target)  one event a read call, nothing committed (the same)",
  );
  for (const line of unwrittenLines) console.log(line);
  console.log(
    "  every commit skipped, a write tool: turns  AI SDK  durable peer  the peer's own trail  nothing committed (ratio to the peer, …)  + the peer's own trail, the median of the rounds' sums (ratio, …)",
  );
  for (const line of writeUnwrittenLines) console.log(line);
  // ADR 0100: the same calls, their trail kept by the leanest store of the same promises.
  console.log(
    "  the leanest store of the same promises (ADR 0100): turns  AI SDK  a read tool (ratio, its rounds' spread, rounds at or under the target)  durable peer  a write tool (ratio to the peer, …)",
  );
  for (const line of leanLines) console.log(line);
  // ADR 0102: the same calls, their trail one row of one table a commit, nothing else on disk.
  console.log(
    "  one row of one table a commit, what the tables keep today held in memory (ADR 0102): turns  AI SDK  a read tool (ratio, …)  durable peer  a write tool (ratio to the peer, …)",
  );
  for (const line of logLines) console.log(line);
  if (threadLines.length > 0) {
    // ADR 0097: what the window's CPU is, the main thread's work and V8's compiling it.
    console.log(
      "  where the CPU runs, µs a call: the main thread + the other threads (nearly all V8's optimising compilers); the CPU above split by the median share",
    );
    for (const line of threadLines) console.log(line);
  }
  console.log(`  load average at the start ${startLoad}, at the end ${loadAverage()}`);
}
