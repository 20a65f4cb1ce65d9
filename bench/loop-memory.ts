import type { WorkerReport } from "./loop-worker.js";
import { CALLS_PER_TURN } from "./loop-workload.js";
import { runWorker } from "./run-worker.js";

const TARGET_MB = 200;
const MB = 2 ** 20;

function line(label: string, report: WorkerReport, note = ""): string {
  const calls = report.turns * CALLS_PER_TURN;
  const cpuUs = (report.warmup.cpuMs * 1000) / calls;
  return `  ${label.padEnd(34)} ${(report.maxRssBytes / MB).toFixed(0).padStart(4)} MB peak RSS, heap ${(report.heapUsedBytes / MB).toFixed(0)} MB at the end, ${cpuUs.toFixed(0)} µs CPU a call${note}`;
}

/**
 * Peak resident memory of one process running the loop workload once for `turns` turns of 10
 * no-op calls: docket with the SQLite file store and with `:memory:`, docket at one turn (what
 * the process weighs before any history), and, unless `withPeer` is false, the AI SDK's
 * generateText on the same workload. Each is a fresh process, so one's heap is not another's.
 */
export async function benchLoopMemory({
  turns = 1000,
  withPeer = true,
}: {
  turns?: number;
  withPeer?: boolean;
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
}
