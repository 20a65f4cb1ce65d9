import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createCheckpoint } from "../src/checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../src/checkpoint/memory-event-sink.js";
import type { ToolCall } from "../src/checkpoint/tool-result.js";
import { openStore } from "../src/store/open-store.js";
import { defineTool } from "../src/tool/define-tool.js";
import { modelCallId } from "./model-call-id.js";
import { measureReadCallFloor, TODAYS_LAYOUT } from "./read-floor.js";
import { unwrittenStore } from "./unwritten-store.js";

const CALLS_PER_BATCH = 10;
const TARGET_US = 30;
/** Calls each side runs before anything is timed. */
const WARM_UP_CALLS = 20_000;

const input = z.object({ n: z.number() });
const tools = [
  defineTool({
    name: "noop",
    description: "Reads nothing.",
    input,
    writes: false,
    handler: ({ n }) => n,
  }),
  defineTool({
    name: "noop_write",
    description: "Writes nothing.",
    input,
    writes: true,
    handler: ({ n }) => n,
  }),
];

/** `unwritten`: the SQLite file store with every commit skipped (`unwrittenStore`, ADR 0099). */
type Side = "memory" | "sqlite" | "unwritten";
/**
 * `counted`: call_0_0, call_0_1, … (this bench's ids since ADR 0015). `model`: random ids, as a
 * model writes them (call_…, toolu_…), which land anywhere in the calls table's key index.
 */
type Ids = "counted" | "model";

/** CPU milliseconds (user + system) of this process since `from`. */
function cpuMs(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}

/**
 * One run: `batches` dispatchBatch calls of 10 calls of one tool, through the checkpoint with a
 * memory sink or a SQLite file store; CPU time in ms (the store's commits are synchronous, so
 * its I/O system calls count as this process's time).
 */
async function run(
  dir: string,
  name: string,
  side: Side,
  tool: string,
  batches: number,
  ids: Ids = "counted",
): Promise<number> {
  const opened =
    side === "memory" ? undefined : await openStore(`sqlite:${join(dir, `${name}.db`)}`);
  const store = opened && side === "unwritten" ? unwrittenStore(opened) : opened;
  const session = store
    ? (await store.createSession({ principal: "agent", configHash: "" })).id
    : "s";
  const checkpoint = createCheckpoint({
    tools,
    policy: () => ({ decision: "allow" }),
    ...(store ? { store } : { events: createMemoryEventSink() }),
  });
  const calls: ToolCall[][] = Array.from({ length: batches }, (_, b) =>
    Array.from({ length: CALLS_PER_BATCH }, (_, c) => ({
      id: ids === "model" ? modelCallId(b * CALLS_PER_BATCH + c) : `call_${b}_${c}`,
      name: tool,
      arguments: `{"n":${b * CALLS_PER_BATCH + c}}`,
    })),
  );
  const start = process.cpuUsage();
  for (const batch of calls) {
    const results = await checkpoint.dispatchBatch(batch, { sessionId: session, runId: "bench" });
    if (results.some((r) => r.status !== "ok")) throw new Error("a bench call did not succeed");
  }
  const ms = cpuMs(start);
  if (store) {
    await store.close();
    rmSync(join(dir, `${name}.db`), { force: true });
    rmSync(join(dir, `${name}.db-wal`), { force: true });
    rmSync(join(dir, `${name}.db-shm`), { force: true });
  }
  return ms;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * The audit write path per call: CPU time of the checkpoint's dispatchBatch with the SQLite file
 * store minus the same with a memory sink, in batches of 10 calls, rounds interleaved so that
 * both sides see the same machine. For reads (the harness's common case; target <= 30 µs) and
 * for writes (its claim with its intent in one commit, its outcome with its calls row in the
 * next write's claim commit or the batch's flush: 11 commits a batch of 10, ADR 0081). With
 * `unwrittenReads`, the read call a third time through the store with every commit skipped
 * (`unwrittenStore`): the store's part before it writes, beside the floor of a read's durable
 * write (ADR 0099).
 *
 * @example
 * ```ts
 * await benchAuditWritePath(); // prints "audit write path per call ..." lines
 * ```
 */
export async function benchAuditWritePath({
  readCalls = 2_000,
  modelIdCalls = 2_000,
  writeCalls = 300,
  rounds = 7,
  unwrittenReads = true,
} = {}): Promise<{ readUs: number; modelUs: number; writeUs: number }> {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-audit-"));
  try {
    const figures: Record<string, number> = {};
    for (const [name, tool, calls, ids] of [
      ["noop", "noop", readCalls, "counted"],
      ["noop_model", "noop", modelIdCalls, "model"],
      ["noop_write", "noop_write", writeCalls, "counted"],
    ] as const) {
      if (calls === 0) continue;
      const batches = calls / CALLS_PER_BATCH;
      // Warm-up: V8 optimises the paths before anything is timed. 20,000 calls a side, as the
      // loop's budget part warms up (ADR 0085): after 6,000, the rounds still read a fifth high.
      const sides: Side[] =
        unwrittenReads && name === "noop"
          ? ["memory", "sqlite", "unwritten"]
          : ["memory", "sqlite"];
      for (let i = 0; i < Math.ceil(WARM_UP_CALLS / calls); i += 1) {
        for (const side of sides) await run(dir, `warm-${name}-${i}`, side, tool, batches, ids);
      }
      const timed = sides.map((): number[] => []);
      for (let i = 0; i < rounds; i += 1) {
        for (const [at, side] of sides.entries()) {
          timed[at]?.push(await run(dir, `${side}-${name}-${i}`, side, tool, batches, ids));
        }
      }
      const perCall = (ms: number) => (ms * 1000) / calls;
      for (const [at, side] of sides.entries()) {
        figures[`${name}:${side}`] = perCall(median(timed[at] ?? []));
      }
    }
    const readUs = (figures["noop:sqlite"] ?? 0) - (figures["noop:memory"] ?? 0);
    const modelUs = (figures["noop_model:sqlite"] ?? 0) - (figures["noop_model:memory"] ?? 0);
    const writeUs = (figures["noop_write:sqlite"] ?? 0) - (figures["noop_write:memory"] ?? 0);
    console.log(
      `  audit write path per call, reads in batches of 10 (SQLite file, CPU, after ${WARM_UP_CALLS.toLocaleString("en-US")} warm-up calls): ${readUs.toFixed(1)} µs (target <= ${TARGET_US} µs; dispatchBatch ${figures["noop:sqlite"]?.toFixed(1)} µs with the store, ${figures["noop:memory"]?.toFixed(1)} µs with a memory sink)`,
    );
    const unwritten = figures["noop:unwritten"];
    if (unwritten !== undefined) {
      // ADR 0099: the store's part of a read call before it writes, and what the target leaves
      // its writes beside the least a durable write of a read can cost.
      const beforeSqlUs = unwritten - (figures["noop:memory"] ?? 0);
      const floorUs = await measureReadCallFloor(TODAYS_LAYOUT);
      console.log(
        `  the same read call with every commit skipped: ${beforeSqlUs.toFixed(1)} µs, which leaves its writes ${(TARGET_US - beforeSqlUs).toFixed(1)} µs of the target; the floor of a read's durable write, today's layout (its turn's two transcript rows included, which this part does not write): ${floorUs.toFixed(1)} µs (ADR 0099)`,
      );
    }
    if (modelIdCalls > 0) {
      console.log(
        `  audit write path per call, reads with model-like random call ids (SQLite file, CPU): ${modelUs.toFixed(1)} µs (each id lands on its own page of the calls key index; ADR 0018)`,
      );
    }
    console.log(
      `  audit write path per call, writes in batches of 10 (SQLite file, CPU): ${writeUs.toFixed(1)} µs (claim and intent committed before its run, outcome and calls row with the next claim: 1.1 commits each; dispatchBatch ${figures["noop_write:sqlite"]?.toFixed(1)} µs with the store)`,
    );
    return { readUs, modelUs, writeUs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
