import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { createCheckpoint } from "../src/checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../src/checkpoint/memory-event-sink.js";
import { startTelemetry } from "../src/cli/start-telemetry.js";
import { createHarness } from "../src/loop/create-harness.js";
import type { ModelScript, ScriptedTurn } from "../src/model/model-script.js";
import { createScriptedModel } from "../src/model/scripted-model.js";
import { openStore } from "../src/store/open-store.js";
import type { TelemetryOptions } from "../src/telemetry/telemetry.js";
import { defineTool } from "../src/tool/define-tool.js";
import { summarise, us } from "./stats.js";

const noop = defineTool({
  name: "noop",
  description: "Does nothing. Use it to measure.",
  input: z.object({ n: z.number().describe("Any number.") }),
  writes: false,
  handler: ({ n }) => n,
});

/** A collector on 127.0.0.1 that reads and drops what the OTLP/HTTP exporters send. */
async function drainCollector() {
  let requests = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      requests += 1;
      response.writeHead(200, { "content-type": "application/json" });
      response.end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Per-call time of checkpoint.dispatch (memory sink, allow policy), in ms per call. */
async function dispatchTimes(telemetry: TelemetryOptions | undefined, calls: number) {
  const sink = createMemoryEventSink();
  const checkpoint = createCheckpoint({
    tools: [noop],
    policy: () => ({ decision: "allow" }),
    events: sink,
    ...(telemetry ? { telemetry } : {}),
  });
  const durations = new Array<number>(calls);
  for (let i = 0; i < calls; i += 1) {
    const start = performance.now();
    const result = await checkpoint.dispatch({ id: `c${i}`, name: "noop", arguments: '{"n":1}' });
    durations[i] = performance.now() - start;
    if (result.status !== "ok") throw new Error(`unexpected ${result.status}`);
    if (sink.events.length > 10_000) sink.events.length = 0;
  }
  return durations;
}

function loopScript(turns: number, perTurn: number): ModelScript {
  const list: ScriptedTurn[] = [];
  for (let t = 0; t < turns; t += 1) {
    list.push({
      text: `Turn ${t}.`,
      toolCalls: Array.from({ length: perTurn }, (_, c) => ({
        id: `call_${t}_${c}`,
        name: "noop",
        arguments: `{"n":${c}}`,
      })),
    });
  }
  list.push({ text: "Done.", toolCalls: [] });
  return { source: "bench/telemetry", turns: list };
}

/** Wall time of one harness run (in-memory SQLite store), in ms per call. */
async function loopPerCall(telemetry: TelemetryOptions | undefined, turns = 50, perTurn = 10) {
  const store = await openStore("sqlite::memory:");
  const harness = createHarness({
    model: createScriptedModel(loopScript(turns, perTurn)),
    tools: [noop],
    store,
    policy: () => ({ decision: "allow" }),
    limits: { maxTurns: turns + 5, maxToolCallsPerRun: turns * perTurn + 10 },
    ...(telemetry ? { telemetry } : {}),
  });
  const start = performance.now();
  const result = await harness.run("Go.");
  const wall = performance.now() - start;
  await store.close();
  if (result.status !== "completed") throw new Error(`run ${result.status}: ${result.text}`);
  return wall / (turns * perTurn);
}

/**
 * What telemetry costs per tool call: with no SDK registered (the API's no-ops) and with the SDK
 * and OTLP/HTTP exporters registered, sending to a collector on 127.0.0.1. Prints both; the
 * targets are at most 2 µs per call off (against bench/loop's figure before telemetry) and at
 * most 15 µs per call added with an SDK. Measure on a quiet machine.
 */
export async function benchTelemetry({ calls = 50_000, rounds = 5 } = {}): Promise<void> {
  const collector = await drainCollector();
  const started = await startTelemetry({ endpoint: collector.url, metricIntervalMs: 1_000 });
  try {
    await dispatchTimes(undefined, 10_000);
    await dispatchTimes(started.options, 10_000);
    const off: number[] = [];
    const on: number[] = [];
    const loopOff: number[] = [];
    const loopOn: number[] = [];
    // Interleaved, so that neither side gets the quieter moments.
    for (let round = 0; round < rounds; round += 1) {
      off.push(...(await dispatchTimes(undefined, calls / rounds)));
      on.push(...(await dispatchTimes(started.options, calls / rounds)));
      loopOff.push(await loopPerCall(undefined));
      loopOn.push(await loopPerCall(started.options));
    }
    const a = summarise(off);
    const b = summarise(on);
    console.log("telemetry: checkpoint.dispatch per call (memory sink, allow policy)");
    console.log(`  no SDK registered:        median ${us(a.medianUs)}, p99 ${us(a.p99Us)}`);
    console.log(`  SDK + OTLP/HTTP exporter: median ${us(b.medianUs)}, p99 ${us(b.p99Us)}`);
    console.log(`  added by the SDK: ${us(b.medianUs - a.medianUs)} per call (target ≤ 15 µs)`);
    const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
    console.log("telemetry: harness run per call (50 turns × 10 calls, in-memory SQLite)");
    console.log(`  no SDK registered:        ${us(med(loopOff) * 1000)}`);
    console.log(`  SDK + OTLP/HTTP exporter: ${us(med(loopOn) * 1000)}`);
  } finally {
    await started.shutdown();
    console.log(`  (the collector received ${collector.requests()} OTLP requests)`);
    await collector.close();
  }
}
