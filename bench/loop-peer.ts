import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { mainThreadShare } from "./cpu-split.js";
import type { WorkerReport, WorkerRun } from "./loop-worker.js";
import { CALLS_PER_TURN } from "./loop-workload.js";
import { countWorkerSyncs, runWorker } from "./run-worker.js";
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
  /**
   * `cpuUs` split by the runs' median share on the main thread: the main thread's part and the
   * part of V8's other threads (nearly all its optimising compilers), which add up to `cpuUs`.
   * Absent where Node does not report a thread's own time.
   */
  readonly threads?: { readonly mainUs: number; readonly otherUs: number };
}

function figures(reports: readonly WorkerReport[], turns: number): PeerFigures {
  const calls = turns * CALLS_PER_TURN;
  const per = (ms: number) => (ms * 1000) / calls;
  const timed: WorkerRun[] = reports.flatMap((r) => r.runs);
  const cpuUs = median(timed.map((r) => per(r.cpuMs)));
  return {
    wallUs: median(timed.map((r) => per(r.wallMs))),
    cpuUs,
    firstWallUs: median(reports.map((r) => per(r.warmup.wallMs))),
    firstCpuUs: median(reports.map((r) => per(r.warmup.cpuMs))),
    fastestCpuUs: Math.min(...timed.map((r) => per(r.cpuMs))),
    processWallUs: reports.map((r) => median(r.runs.map((x) => per(x.wallMs)))),
    modelUs: median(timed.map((r) => per(r.modelMs))),
    ...threadSplit(timed, cpuUs),
  };
}

function threadSplit(timed: readonly WorkerRun[], cpuUs: number): Pick<PeerFigures, "threads"> {
  const share = mainThreadShare(timed);
  if (share === undefined) return {};
  return { threads: { mainUs: cpuUs * share, otherUs: cpuUs * (1 - share) } };
}

/** The thread split of both systems, or nothing where Node does not report it. */
function threadsLine(d: PeerFigures, s: PeerFigures): string {
  if (!d.threads || !s.threads) return "";
  return `; of the CPU, on the main thread ${d.threads.mainUs.toFixed(0)} / ${s.threads.mainUs.toFixed(0)}, on other threads (V8's compilers) ${d.threads.otherUs.toFixed(0)} / ${s.threads.otherUs.toFixed(0)}`;
}

/** Issue 38's targets for docket with a read tool: docket / AI SDK CPU at most this. */
const TARGET_RATIO: Record<number, number> = { 10: 1, 100: 0.5 };

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

/** One pairing of the bench: docket and the peer it must match. */
interface Pairing {
  readonly title: string;
  readonly docket: WorkerReport["system"];
  readonly peer: WorkerReport["system"];
  readonly peerName: string;
}

const PAIRINGS: readonly Pairing[] = [
  { title: "read tool", docket: "docket", peer: "ai-sdk", peerName: "AI SDK" },
  {
    title: "write tool (intent before the handler)",
    docket: "docket-write",
    peer: "ai-sdk-durable",
    peerName: "durable AI SDK peer",
  },
];

/** Timed runs per process at a run length: 1,000 turns is 10,000 calls a run. */
const runsAt = (turns: number) => (turns >= 1000 ? 1 : TIMED_RUNS);

/**
 * Disk flushes per call of one system at one run length: (runs − warm-up only) / calls. One run
 * past 100 turns, where a run is already thousands of calls.
 */
async function syncsPerCall(system: WorkerReport["system"], turns: number): Promise<string> {
  const runs = turns > 100 ? 1 : 2;
  const withRuns = await countWorkerSyncs(system, "file", turns, runs);
  const warmupOnly = await countWorkerSyncs(system, "file", turns, 0);
  if (withRuns === undefined || warmupOnly === undefined) return "n/a";
  return ((withRuns - warmupOnly) / (runs * turns * CALLS_PER_TURN)).toFixed(2);
}

/**
 * docket beside its peers on the same workload: N turns of 10 no-op zod calls from a fake
 * LanguageModelV4 that yields to the event loop once per call, as a network reply does. With a
 * read tool docket is set beside the AI SDK's generateText; with a write tool, beside the AI SDK
 * plus a hand-made durable trail (bench/durable-peer.ts: request committed before the tool runs,
 * result after, hash-chained). Every measurement is a process of its own (one warm-up run, then
 * timed ones), the two systems of a pairing taken in turn, so the machine's slow moments fall on
 * both alike. Prints per run length the median time per call (wall and CPU), the ratios, the
 * fsyncs per call (strace), and the issue's targets.
 */
export async function benchLoopPeer({
  lengths = [1, 3, 10, 100, 1000],
  processes = 3,
}: {
  lengths?: readonly number[];
  processes?: number;
} = {}): Promise<void> {
  const startLoad = load();
  console.log(
    `bench/loop peer: N turns x ${CALLS_PER_TURN} no-op zod calls, a fake LanguageModelV4 that yields once per call; docket = createHarness + SQLite file store (audit on), AI SDK = generateText (ai ${aiVersion()}) with stopWhen stepCountIs(N+1)`,
  );
  console.log(
    `  ${processes} process${processes === 1 ? "" : "es"} per system and run length (one at 1,000 turns), interleaved; each 1 warm-up + ${TIMED_RUNS} timed runs (1 at 1,000 turns); medians per call (load average ${startLoad})`,
  );
  const verdicts: string[] = [];
  for (const pairing of PAIRINGS) {
    console.log(`  ${pairing.title}: docket / ${pairing.peerName}`);
    console.log(
      "  turns   docket µs    peer µs  ratio |  docket CPU    peer CPU  ratio | fsyncs a call | first run in a process, µs (CPU)",
    );
    for (const turns of lengths) {
      const docket: WorkerReport[] = [];
      const peer: WorkerReport[] = [];
      const count = turns >= 1000 ? 1 : processes;
      for (let p = 0; p < count; p += 1) {
        // Alternate who goes first, so neither always runs right after the other's exit.
        const order = p % 2 === 0 ? [docket, peer] : [peer, docket];
        for (const into of order) {
          const system = into === docket ? pairing.docket : pairing.peer;
          const store = system === "ai-sdk" ? "none" : "file";
          into.push(await runWorker(system, store, turns, runsAt(turns)));
        }
      }
      const d = figures(docket, turns);
      const s = figures(peer, turns);
      const wallRatio = d.wallUs / s.wallUs;
      const cpuRatio = d.cpuUs / s.cpuUs;
      const syncs = `${await syncsPerCall(pairing.docket, turns)} / ${pairing.peer === "ai-sdk" ? "0" : await syncsPerCall(pairing.peer, turns)}`;
      console.log(
        `  ${String(turns).padStart(5)} ${col(d.wallUs, 11)} ${col(s.wallUs, 10)} ${wallRatio.toFixed(2).padStart(6)} | ${col(d.cpuUs, 11)} ${col(s.cpuUs, 11)} ${cpuRatio.toFixed(2).padStart(6)} | ${syncs.padEnd(13)} | ${d.firstWallUs.toFixed(0)} / ${s.firstWallUs.toFixed(0)} (${d.firstCpuUs.toFixed(0)} / ${s.firstCpuUs.toFixed(0)})`,
      );
      console.log(
        `          per process, wall: docket ${d.processWallUs.map((v) => v.toFixed(0)).join(", ")}; peer ${s.processWallUs.map((v) => v.toFixed(0)).join(", ")}; in the fake model: ${d.modelUs.toFixed(1)} / ${s.modelUs.toFixed(1)}${threadsLine(d, s)}`,
      );
      const target = pairing.docket === "docket" ? TARGET_RATIO[turns] : 1;
      if (target !== undefined)
        verdicts.push(
          `  target, ${pairing.title}, ${turns} turns: docket CPU <= ${target === 1 ? "" : `${target}x `}${pairing.peerName}: ${verdict(cpuRatio, target)} (${cpuRatio.toFixed(2)})`,
        );
    }
  }
  for (const line of verdicts) console.log(line);
  console.log(`  load average at the start ${startLoad}, at the end ${load()}`);
}
