import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { openStore } from "../src/store/open-store.js";
import { openNodeSqlite } from "../src/store/sqlite/node-sqlite-database.js";
import { loadAverage } from "./built-cli.js";
import { EVENT, HASH, WRITE_CALL_COMMIT } from "./commit-floor.js";
import { type CpuSplit, measureCpu } from "./cpu-split.js";
import { median } from "./stats.js";
import type { WriterCommit } from "./writer-thread-worker.js";

/** A fresh store file with one session (its key row made by a first claim); its path and id. */
async function freshStore(dir: string): Promise<{ path: string; sessionId: string }> {
  const path = join(dir, "docket.db");
  const store = await openStore(`sqlite:${path}`);
  const session = await store.createSession({ principal: "bench", configHash: "" });
  await store.claimCall(session.id, "first", { tool: "noop", writes: true });
  await store.close();
  return { path, sessionId: session.id };
}

/** Each write call's claim commit on the main thread, as docket's store makes it today. */
async function onMainThread(path: string, sessionId: string, commits: number): Promise<CpuSplit> {
  const db = openNodeSqlite(path);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  const step = WRITE_CALL_COMMIT.prepare(db, sessionId);
  // One untimed commit, as the writer thread's first.
  db.exec("BEGIN IMMEDIATE");
  step(-1);
  db.exec("COMMIT");
  try {
    return await measureCpu(async () => {
      for (let i = 0; i < commits; i += 1) {
        db.exec("BEGIN IMMEDIATE");
        step(i);
        db.exec("COMMIT");
        // A write's handler runs after its commit: the event loop turns, as it does in docket.
        await Promise.resolve();
      }
    });
  } finally {
    db.close();
  }
}

/**
 * The same commits on a writer thread: the main thread sends each commit's values and waits for
 * its acknowledgement before the next, because a write's handler may not start before its intent
 * is durable (issue 38's condition for an asynchronous writer).
 */
async function onWriterThread(path: string, sessionId: string, commits: number): Promise<CpuSplit> {
  // Built, the worker is JavaScript beside this file; from the sources (the tests), TypeScript.
  const source = import.meta.url.endsWith(".ts");
  const worker = new Worker(
    new URL(`./writer-thread-worker.${source ? "ts" : "js"}`, import.meta.url),
    { workerData: { path, sessionId }, execArgv: source ? ["--import", "tsx"] : [] },
  );
  let pending: { resolve: (i: number) => void; reject: (error: unknown) => void } | undefined;
  worker.on("message", (i: number) => pending?.resolve(i));
  worker.on("error", (error) => pending?.reject(error));
  const send = (i: number) =>
    new Promise<number>((resolve, reject) => {
      pending = { resolve, reject };
      const commit: WriterCommit = {
        i,
        values: [sessionId, 3_000_000 + i, `call_${i}`, EVENT, HASH, HASH, HASH, Date.now()],
      };
      worker.postMessage(commit);
    });
  // The thread started and its statements prepared before timing, as a store's would be.
  await send(-1);
  try {
    return await measureCpu(async () => {
      for (let i = 0; i < commits; i += 1) {
        if ((await send(i)) !== i)
          throw new Error(`the writer acknowledged another commit than ${i}`);
      }
    });
  } finally {
    worker.postMessage("close");
    await new Promise((resolve) => worker.once("exit", resolve));
  }
}

/** The rows the timed part must have left: a commit that did not write is not a figure. */
function countCalls(path: string, sessionId: string): number {
  const db = openNodeSqlite(path);
  try {
    return Number(
      db
        .prepare("SELECT count(*) FROM calls WHERE session_id = ? AND call_id LIKE 'floor_%'")
        .pluck()
        .get(sessionId),
    );
  } finally {
    db.close();
  }
}

/**
 * Issue 38 allows an asynchronous writer on a worker thread for the write path if a write's
 * handler still waits for its intent to be durable, and asks for a measurement before adopting
 * one. This measures it on docket's schema: a write call's claim commit (its event, the chain
 * head, its `calls` row) made on the main thread, and the same commit made by a writer thread
 * with its own connection while the main thread waits for each acknowledgement. It prints the
 * process's CPU a commit (every thread: what the targets count), the main thread's part, and
 * wall, the median of rounds in which the two alternate on fresh files.
 *
 * @example
 * ```ts
 * await benchWriterThread(); // main thread … µs a commit, writer thread … µs (… on the main thread)
 * ```
 */
export async function benchWriterThread({
  commits = 3_000,
  rounds = 7,
}: {
  commits?: number;
  rounds?: number;
} = {}): Promise<void> {
  console.log(
    `\nbench/writer-thread: a write call's claim commit on docket's schema, on the main thread and on a writer thread, ${commits} commits x ${rounds} rounds, medians (load ${loadAverage()})`,
  );
  const ways = { main: [] as CpuSplit[], writer: [] as CpuSplit[] };
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? (["main", "writer"] as const) : (["writer", "main"] as const);
    for (const way of order) {
      const dir = mkdtempSync(join(tmpdir(), "docket-writer-thread-"));
      try {
        const { path, sessionId } = await freshStore(dir);
        const run = way === "main" ? onMainThread : onWriterThread;
        ways[way].push(await run(path, sessionId, commits));
        const written = countCalls(path, sessionId);
        // The timed commits and the untimed first one.
        if (written !== commits + 1)
          throw new Error(`${way}: ${written} calls rows, not ${commits + 1}`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }
  const per = (runs: CpuSplit[], pick: (run: CpuSplit) => number | undefined) =>
    median(runs.map((run) => ((pick(run) ?? Number.NaN) * 1000) / commits)).toFixed(1);
  for (const [name, runs] of [
    ["on the main thread (today)", ways.main],
    ["on a writer thread, each acknowledged", ways.writer],
  ] as const) {
    console.log(
      `  ${name.padEnd(40)} CPU ${per(runs, (r) => r.cpuMs).padStart(6)} µs a commit (main thread ${per(runs, (r) => r.mainThreadCpuMs).padStart(6)}), wall ${per(runs, (r) => r.wallMs).padStart(6)} µs`,
    );
  }
  console.log(`  (load at the end ${loadAverage()})`);
}
