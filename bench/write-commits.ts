import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createCheckpoint } from "../src/checkpoint/create-checkpoint.js";
import { openStore } from "../src/store/open-store.js";
import { defineTool } from "../src/tool/define-tool.js";
import { durableAiSdkSystem } from "./durable-peer.js";
import { docketSystem } from "./loop-systems.js";
import { CALLS_PER_TURN, workloadModel, workloadScript } from "./loop-workload.js";
import { commitsSince, readWal } from "./wal-commits.js";

/** Few enough that the log stays below the point where docket's checkpointer resets it. */
const TURNS = 3;

/** Commits per call of the workload; NaN when the log was reset while counting. */
const perCall = (commits: number | undefined) =>
  commits === undefined ? Number.NaN : commits / (TURNS * CALLS_PER_TURN);

/**
 * docket's commits per write call: batches of 10 write calls through the checkpoint; with
 * `dedupe`, the tool has a dedupe key (each call a new action, so each runs).
 */
async function docketCommits(dir: string, { dedupe = false } = {}): Promise<number> {
  const path = join(dir, dedupe ? "dedupe.db" : "docket.db");
  const store = await openStore(`sqlite:${path}`);
  try {
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const noopWrite = defineTool({
      name: "noop_write",
      description: "Use it when a bench asks for a write; writes nothing.",
      input: z.object({ n: z.number().describe("Any number.") }),
      writes: true,
      ...(dedupe ? { dedupe: { key: ({ n }: { n: number }) => `noop:${n}` } } : {}),
      handler: ({ n }) => n,
    });
    const checkpoint = createCheckpoint({
      tools: [noopWrite],
      store,
      policy: () => ({ decision: "allow" }),
    });
    const before = readWal(`${path}-wal`);
    for (let t = 0; t < TURNS; t += 1) {
      const batch = Array.from({ length: CALLS_PER_TURN }, (_, c) => ({
        id: `call_${t}_${c}`,
        name: "noop_write",
        arguments: `{"n":${t * CALLS_PER_TURN + c}}`,
      }));
      await checkpoint.dispatchBatch(batch, { sessionId: session.id, runId: "bench" });
    }
    return perCall(commitsSince(`${path}-wal`, before));
  } finally {
    await store.close();
  }
}

/**
 * The same through docket's whole loop (createHarness with a write tool): the run's own commits
 * (session, transcript, the pending batch of a turn with a write) come on top.
 */
async function harnessCommits(dir: string): Promise<number> {
  const system = await docketSystem({ store: "file", dir, writes: true });
  try {
    await system.run(workloadModel(workloadScript(1)).model, 1);
    const before = readWal(join(dir, "docket.db-wal"));
    await system.run(workloadModel(workloadScript(TURNS)).model, TURNS);
    return perCall(commitsSince(join(dir, "docket.db-wal"), before));
  } finally {
    await system.close();
  }
}

/** The durable AI SDK peer's commits per call, on the same workload shape. */
async function peerCommits(dir: string): Promise<number> {
  const peer = await durableAiSdkSystem({ dir });
  try {
    const before = readWal(join(dir, "peer.db-wal"));
    await peer.run(workloadModel(workloadScript(TURNS)).model, TURNS);
    return perCall(commitsSince(join(dir, "peer.db-wal"), before));
  } finally {
    await peer.close();
  }
}

/** A count, or why there is none. */
const shown = (value: number) =>
  Number.isNaN(value) ? "n/a (the log was checkpointed meanwhile)" : value.toFixed(1);

/**
 * Commits per write call, counted in the SQLite write-ahead log (each commit ends with one
 * commit frame; with `synchronous=FULL` each is one fsync): docket through its checkpoint
 * beside the durable AI SDK peer (bench/durable-peer.ts). Issue 38's target: at most the peer's.
 *
 * @example
 * ```ts
 * const { docket, harness, peer } = await benchWriteCommits(); // e.g. 1.1, 1.3 and 2.0
 * ```
 */
export async function benchWriteCommits(): Promise<{
  docket: number;
  harness: number;
  peer: number;
}> {
  const dirs = ["checkpoint", "harness", "peer"].map((name) =>
    mkdtempSync(join(tmpdir(), `docket-bench-commits-${name}-`)),
  );
  const [checkpointDir = "", harnessDir = "", peerDir = ""] = dirs;
  try {
    const docket = await docketCommits(checkpointDir);
    const dedupe = await docketCommits(checkpointDir, { dedupe: true });
    const harness = await harnessCommits(harnessDir);
    const peer = await peerCommits(peerDir);
    console.log(
      `  commits per write call (SQLite write-ahead log, batches of 10): docket's checkpoint ${shown(docket)} (${shown(dedupe)} with a dedupe key), docket's whole loop ${shown(harness)}, durable AI SDK peer ${shown(peer)} (target: at most the peer's; each is one fsync with synchronous=FULL)`,
    );
    return { docket, harness, peer };
  } finally {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}
