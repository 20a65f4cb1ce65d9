import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { durableAiSdkSystem } from "../../bench/durable-peer.js";
import { benchLoop } from "../../bench/loop.js";
import { aiSdkSystem, docketSystem } from "../../bench/loop-systems.js";
import type { WorkerReport } from "../../bench/loop-worker.js";
import { CALLS_PER_TURN, workloadModel, workloadScript } from "../../bench/loop-workload.js";
import { openNodeSqlite } from "../../src/store/sqlite/node-sqlite-database.js";

const run = promisify(execFile);
const tsx = import.meta.resolve("tsx");
const worker = fileURLToPath(new URL("../../bench/loop-worker.ts", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-test-"));
  dirs.push(dir);
  return dir;
};

describe("bench/loop's peer comparison", () => {
  it("gives docket and the AI SDK the same calls, in the same order, from the same model", async () => {
    const seen = { docket: [] as number[], sdk: [] as number[] };
    const docket = await docketSystem({
      store: "file",
      dir: tempDir(),
      handler: ({ n }) => seen.docket.push(n),
    });
    const sdk = await aiSdkSystem({ handler: ({ n }) => seen.sdk.push(n) });
    await docket.run(workloadModel(workloadScript(3)).model, 3);
    await sdk.run(workloadModel(workloadScript(3)).model, 3);
    await docket.close();
    const expected = Array.from({ length: 3 * CALLS_PER_TURN }, (_, i) => i);
    expect(seen.docket).toEqual(expected);
    expect(seen.sdk).toEqual(expected);
  });

  it("fails a run that did not do the whole workload, for either system", async () => {
    // A model with fewer turns than the run asks for: its closing text comes early.
    const docket = await docketSystem({ store: "memory", dir: tempDir() });
    await expect(docket.run(workloadModel(workloadScript(1)).model, 2)).rejects.toThrow(
      /after 10 calls/,
    );
    await docket.close();
    const sdk = await aiSdkSystem();
    await expect(sdk.run(workloadModel(workloadScript(1)).model, 2)).rejects.toThrow(
      /after 10 calls/,
    );
  });

  it("streams and generates the same replies, and refuses one past the script", async () => {
    const script = workloadScript(1);
    const { model } = workloadModel(script);
    const options = { prompt: [] };
    const generated = await model.doGenerate(options);
    const calls = generated.content.filter((part) => part.type === "tool-call");
    expect(calls.map((c) => c.input)).toEqual(
      Array.from({ length: CALLS_PER_TURN }, (_, i) => `{"n":${i}}`),
    );
    const { stream } = await model.doStream(options);
    const parts = [];
    for await (const part of stream) parts.push(part);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "stop" } });
    await expect(model.doGenerate(options)).rejects.toThrow(/has 2 replies; one more asked/);
  });

  it("runs each measurement in a worker process that reports its runs and peak memory", async () => {
    for (const [system, store] of [
      ["docket", "file"],
      ["docket-write", "file"],
      ["docket-untracked", "file"],
      ["docket-write-untracked", "file"],
      ["docket-unwritten", "file"],
      ["docket-unwritten-one-event", "file"],
      ["docket-write-unwritten", "file"],
      ["docket-lean", "file"],
      ["docket-write-lean", "file"],
      ["ai-sdk", "none"],
      ["ai-sdk-durable", "file"],
    ] as const) {
      const { stdout } = await run(process.execPath, [
        "--expose-gc",
        "--import",
        tsx,
        worker,
        system,
        store,
        "2",
        "2",
      ]);
      const report = JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as WorkerReport;
      expect(report).toMatchObject({ system, store, turns: 2 });
      expect(report.runs).toHaveLength(2);
      const threads = typeof (process as { threadCpuUsage?: unknown }).threadCpuUsage;
      const all = [report.warmup, ...report.runs];
      for (const r of all) {
        expect(r.wallMs).toBeGreaterThan(0);
        expect(r.cpuMs).toBeGreaterThan(0);
        // The main thread's share, where Node reports it: part of the process's CPU, not more
        // (a millisecond of slack for the two clocks' ticks). A thread's clock may advance a
        // scheduler tick at a time (4 ms here), so a short run can read 0 on it.
        if (threads === "function") {
          expect(r.mainThreadCpuMs).toBeGreaterThanOrEqual(0);
          expect(r.mainThreadCpuMs).toBeLessThanOrEqual(r.cpuMs + 1);
        } else {
          expect(r.mainThreadCpuMs).toBeUndefined();
        }
      }
      // The warm-up run alone takes tens of milliseconds on the main thread.
      if (threads === "function") {
        expect(all.reduce((sum, r) => sum + (r.mainThreadCpuMs ?? 0), 0)).toBeGreaterThan(0);
      }
      expect(report.maxRssBytes).toBeGreaterThan(report.liveHeapBytes);
    }
  });

  it("refuses bad worker arguments and unknown parts", async () => {
    await expect(
      run(process.execPath, ["--import", tsx, worker, "langgraph", "none", "1", "1"]),
    ).rejects.toMatchObject({ stderr: expect.stringContaining("unknown system langgraph") });
    await expect(
      run(process.execPath, ["--import", tsx, worker, "docket", "file", "0", "1"]),
    ).rejects.toMatchObject({ stderr: expect.stringContaining("TURNS must be") });
    await expect(benchLoop({ env: { DOCKET_BENCH_LOOP: "peer,nope" } })).rejects.toThrow(
      /unknown part nope/,
    );
  });

  it("gives the durable peer a chained trail: each request kept before its tool runs, then its result", async () => {
    const dir = tempDir();
    const rowsSeenByHandler: number[] = [];
    const file = join(dir, "peer.db");
    const peer = await durableAiSdkSystem({
      dir,
      handler: ({ n }) => {
        const reader = openNodeSqlite(file, { readOnly: true });
        rowsSeenByHandler.push(
          (reader.prepare("SELECT count(*) AS c FROM trail").get() as { c: number }).c,
        );
        reader.close();
        return n;
      },
    });
    await peer.run(workloadModel(workloadScript(2)).model, 2);
    await peer.close();
    // Call k's handler sees the k earlier calls' two rows and its own request, already committed.
    expect(rowsSeenByHandler).toEqual(
      Array.from({ length: 2 * CALLS_PER_TURN }, (_, k) => 2 * k + 1),
    );
    const db = openNodeSqlite(file, { readOnly: true });
    const rows = db.prepare("SELECT kind FROM trail ORDER BY seq").all() as { kind: string }[];
    db.close();
    expect(rows.map((r) => r.kind)).toEqual(
      Array.from({ length: 4 * CALLS_PER_TURN }, (_, i) => (i % 2 === 0 ? "request" : "result")),
    );
  });

  it("yields to the event loop once per model call, as a network reply does", async () => {
    const { model } = workloadModel(workloadScript(1));
    let ticked = false;
    setImmediate(() => {
      ticked = true;
    });
    await model.doGenerate({ prompt: [] });
    expect(ticked).toBe(true);
  });
});
