import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createCheckpoint } from "../src/checkpoint/create-checkpoint.js";
import { openStore } from "../src/store/open-store.js";
import { defineTool } from "../src/tool/define-tool.js";
import { durableAiSdkSystem } from "./durable-peer.js";
import { CALLS_PER_TURN, workloadModel, workloadScript } from "./loop-workload.js";
import { countWalCommits } from "./wal-commits.js";

/** Few enough that the log stays below the point where docket's checkpointer resets it. */
const TURNS = 5;

/** docket's commits per write call: batches of 10 write calls through the checkpoint. */
async function docketCommits(dir: string): Promise<number> {
  const path = join(dir, "docket.db");
  const store = await openStore(`sqlite:${path}`);
  try {
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const noopWrite = defineTool({
      name: "noop_write",
      description: "Use it when a bench asks for a write; writes nothing.",
      input: z.object({ n: z.number().describe("Any number.") }),
      writes: true,
      handler: ({ n }) => n,
    });
    const checkpoint = createCheckpoint({
      tools: [noopWrite],
      store,
      policy: () => ({ decision: "allow" }),
    });
    const before = countWalCommits(`${path}-wal`);
    for (let t = 0; t < TURNS; t += 1) {
      const batch = Array.from({ length: CALLS_PER_TURN }, (_, c) => ({
        id: `call_${t}_${c}`,
        name: "noop_write",
        arguments: `{"n":${c}}`,
      }));
      await checkpoint.dispatchBatch(batch, { sessionId: session.id, runId: "bench" });
    }
    return (countWalCommits(`${path}-wal`) - before) / (TURNS * CALLS_PER_TURN);
  } finally {
    await store.close();
  }
}

/** The durable AI SDK peer's commits per call, on the same workload shape. */
async function peerCommits(dir: string): Promise<number> {
  const peer = await durableAiSdkSystem({ dir });
  try {
    const before = countWalCommits(join(dir, "peer.db-wal"));
    await peer.run(workloadModel(workloadScript(TURNS)).model, TURNS);
    return (countWalCommits(join(dir, "peer.db-wal")) - before) / (TURNS * CALLS_PER_TURN);
  } finally {
    await peer.close();
  }
}

/**
 * Commits per write call, counted in the SQLite write-ahead log (each commit ends with one
 * commit frame; with `synchronous=FULL` each is one fsync): docket through its checkpoint
 * beside the durable AI SDK peer (bench/durable-peer.ts). Issue 38's target: at most the peer's.
 *
 * @example
 * ```ts
 * const { docket, peer } = await benchWriteCommits(); // e.g. 2.0 and 2.0
 * ```
 */
export async function benchWriteCommits(): Promise<{ docket: number; peer: number }> {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-commits-"));
  try {
    const docket = await docketCommits(dir);
    const peer = await peerCommits(dir);
    console.log(
      `  commits per write call (SQLite write-ahead log, batches of 10): docket ${docket.toFixed(1)}, durable AI SDK peer ${peer.toFixed(1)} (target: at most the peer's; each is one fsync with synchronous=FULL)`,
    );
    return { docket, peer };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
