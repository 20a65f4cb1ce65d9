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
 * peer with the peer's own trail added.
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
    `bench/loop ceiling: docket beside a store that keeps nothing per call (no event, no calls row, no transcript batch; the session's start and end kept), the AI SDK, docket with its trail, the durable peer and docket with a write tool (with and without its trail), and docket with its trail made and never committed; ${rounds} rounds of fresh processes, each 1 warm-up + ${TIMED_RUNS} timed runs of N turns x ${CALLS_PER_TURN} no-op calls; CPU µs a call (load average ${startLoad})`,
  );
  console.log(
    "  a read tool: turns  AI SDK   docket (ratio)   no trail (ratio) | trail today | target leaves a trail | rounds it leaves none",
  );
  const writeLines: string[] = [];
  const unwrittenLines: string[] = [];
  const writeUnwrittenLines: string[] = [];
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
    const [
      aiSdk,
      docket,
      untracked,
      durable,
      docketWrite,
      writeUntracked,
      unwritten,
      unwrittenOne,
      writeUnwritten,
    ] = SYSTEMS.map((_, at) => median(measured.map((us) => us[at] ?? 0))) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    // The CPU column split by the rounds' median share on the main thread: the parts add up.
    const split = SYSTEMS.map((system, at) => {
      const found = shares[at] ?? [];
      if (found.length === 0 || found.some((share) => share === undefined)) return undefined;
      const cpu = median(measured.map((us) => us[at] ?? 0));
      const main = cpu * median(found.map((share) => share ?? 0));
      return `${system} ${main.toFixed(0)} + ${(cpu - main).toFixed(0)}`;
    });
    if (split.every((line) => line !== undefined)) {
      threadLines.push(`  ${String(turns).padStart(5)}: ${split.join(", ")}`);
    }
    const ratio = READ_TARGET[turns] ?? 1;
    const read = measured.map(([aiSdkUs = 0, docketUs = 0, untrackedUs = 0]) =>
      trailCeiling({ aiSdkUs, docketUs, untrackedUs }, ratio),
    );
    // The write target: docket with a write tool at or below the durable peer, whose trail is
    // its own; docket's write trail gets what the peer's CPU leaves beside docket with the same
    // write tool and no trail.
    const write = measured.map(([, , , durableUs = 0, docketWriteUs = 0, untrackedUs = 0]) =>
      trailCeiling({ aiSdkUs: durableUs, docketUs: docketWriteUs, untrackedUs }, 1),
    );
    const none = (cs: TrailCeiling[]) => cs.filter((c) => c.leftForTrailUs <= 0).length;
    const mid = (cs: TrailCeiling[], key: "trailUs" | "leftForTrailUs") =>
      median(cs.map((c) => c[key])).toFixed(1);
    // What the target leaves, round by round: a median near 0 says little without its spread.
    const spread = (cs: TrailCeiling[]) => {
      const left = cs.map((c) => c.leftForTrailUs);
      return `${Math.min(...left).toFixed(0)} to ${Math.max(...left).toFixed(0)}`;
    };
    console.log(
      `  ${String(turns).padStart(5)} ${aiSdk.toFixed(1).padStart(10)} ${docket.toFixed(1).padStart(8)} (${(docket / aiSdk).toFixed(2)}x) ${untracked.toFixed(1).padStart(10)} (${(untracked / aiSdk).toFixed(2)}x) | ${mid(read, "trailUs").padStart(11)} | ${mid(read, "leftForTrailUs").padStart(9)} (${ratio}x, ${spread(read)}) | ${none(read)} of ${rounds}`,
    );
    const x = (us: number, of: number) => `${us.toFixed(1).padStart(8)} (${(us / of).toFixed(2)}x)`;
    unwrittenLines.push(
      `  ${String(turns).padStart(5)} ${aiSdk.toFixed(1).padStart(10)} ${x(unwritten, aiSdk).padStart(22)} ${x(unwrittenOne, aiSdk).padStart(40)} | ${ratio}x`,
    );
    // Round by round, so the peer's trail and docket's figure come from the same minutes.
    const bound = median(
      measured.map(
        ([aiSdkUs = 0, , , durableUs = 0, , , , , unwrittenUs = 0]) =>
          unwrittenWrite({ aiSdkUs, durableUs, unwrittenUs }).withPeerTrailUs,
      ),
    );
    writeUnwrittenLines.push(
      `  ${String(turns).padStart(5)} ${aiSdk.toFixed(1).padStart(7)} ${durable.toFixed(1).padStart(13)} ${(durable - aiSdk).toFixed(1).padStart(17)} ${x(writeUnwritten, durable).padStart(28)} ${x(bound, durable).padStart(33)}`,
    );
    writeLines.push(
      `  ${String(turns).padStart(5)} ${durable.toFixed(1).padStart(12)} ${docketWrite.toFixed(1).padStart(8)} (${(docketWrite / durable).toFixed(2)}x) ${writeUntracked.toFixed(1).padStart(10)} (${(writeUntracked / durable).toFixed(2)}x) | ${mid(write, "trailUs").padStart(17)} | ${mid(write, "leftForTrailUs").padStart(24)} (${spread(write)}) | ${none(write)} of ${rounds}`,
    );
  }
  console.log(
    "  a write tool: turns  durable peer   docket-write (ratio)   no trail (ratio) | docket's write trail | the peer leaves a trail (1x) | rounds it leaves none",
  );
  for (const line of writeLines) console.log(line);
  // ADR 0099: the same calls with every commit of the trail skipped.
  console.log(
    "  every commit skipped, a read tool: turns  AI SDK   nothing written (ratio)   one event a read call, nothing written (ratio) | target",
  );
  for (const line of unwrittenLines) console.log(line);
  console.log(
    "  every commit skipped, a write tool: turns  AI SDK  durable peer  the peer's trail  nothing written (ratio to the peer)  + the peer's trail (ratio)",
  );
  for (const line of writeUnwrittenLines) console.log(line);
  if (threadLines.length > 0) {
    // ADR 0097: what the window's CPU is, the main thread's work and V8's compiling it.
    console.log(
      "  where the CPU runs, µs a call: the main thread + the other threads (nearly all V8's optimising compilers); the CPU above split by the median share",
    );
    for (const line of threadLines) console.log(line);
  }
  console.log(`  load average at the start ${startLoad}, at the end ${loadAverage()}`);
}
