import type { WorkerReport } from "./loop-worker.js";
import { CALLS_PER_TURN } from "./loop-workload.js";
import { runWorker } from "./run-worker.js";

const TARGET_MB = 200;
const MB = 2 ** 20;

function line(label: string, report: WorkerReport, note = ""): string {
  const calls = report.turns * CALLS_PER_TURN;
  const cpuUs = (report.warmup.cpuMs * 1000) / calls;
  return `  ${label.padEnd(34)} ${(report.maxRssBytes / MB).toFixed(0).padStart(4)} MB peak RSS, live heap ${((report.liveHeapAtLastTurn ?? 0) / MB).toFixed(0)} MB at the last turn, ${cpuUs.toFixed(0)} µs CPU a call${note}`;
}

/**
 * Peak resident memory of one process running the loop workload once for `turns` turns of 10
 * no-op calls: docket with the SQLite file store and with `:memory:`, docket at one turn (what
 * the process weighs before any history), and, unless `withPeer` is false, the AI SDK's
 * generateText on the same workload. Then docket for `longTurns`: this workload's transcript
 * passes the context budget (`limits.contextBytes`, 400 KB) at about 2,000 turns, after which
 * every turn fits the prompt to the budget again. Each is a fresh process, so one's heap is not
 * another's.
 */
export async function benchLoopMemory({
  turns = 1000,
  withPeer = true,
  longTurns = 3000,
}: {
  turns?: number;
  withPeer?: boolean;
  /** A longer docket run, past the default 400 KB context budget (0: none). */
  longTurns?: number;
} = {}): Promise<void> {
  console.log(
    `bench/loop memory: peak RSS of a fresh process running ${turns.toLocaleString("en-US")} turns x ${CALLS_PER_TURN} no-op calls once (process.resourceUsage().maxRSS)`,
  );
  const file = await runWorker("docket", "file", turns, 0);
  const memory = await runWorker("docket", "memory", turns, 0);
  const base = await runWorker("docket", "file", 1, 0);
  const fileMb = file.maxRssBytes / MB;
  console.log(
    line(
      "docket, SQLite file store",
      file,
      `  (target <= ${TARGET_MB} MB: ${fileMb <= TARGET_MB ? "met" : "MISSED"})`,
    ),
  );
  console.log(line("docket, SQLite :memory: store", memory, "  (the trail itself in the heap)"));
  console.log(
    line(
      "docket, file store, 1 turn",
      base,
      `  (the process before history: ${((file.maxRssBytes - base.maxRssBytes) / MB).toFixed(0)} MB more at ${turns} turns)`,
    ),
  );
  if (withPeer)
    console.log(line("AI SDK generateText", await runWorker("ai-sdk", "none", turns, 0)));
  if (longTurns > 0) {
    const long = await runWorker("docket", "file", longTurns, 0);
    console.log(
      line(
        `docket, file store, ${longTurns.toLocaleString("en-US")} turns`,
        long,
        "  (past the 400 KB context budget from about 2,000 turns)",
      ),
    );
  }
}
