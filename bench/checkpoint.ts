import { z } from "zod";
import { createCheckpoint, createMemoryEventSink, defineTool } from "../src/index.js";
import { benchSecretScan } from "./secret-scan.js";
import { summarise, us } from "./stats.js";

/**
 * Per-call overhead of the checkpoint (no-op tool, allow policy, memory sink) beside the same
 * work done by hand: JSON.parse, schema parse, direct call.
 */
export async function benchCheckpoint({ calls = 100_000, warmup = 20_000 } = {}): Promise<void> {
  const input = z.object({ order_id: z.string(), amount: z.number() });
  const handler = (args: { order_id: string; amount: number }) => args.amount;
  const tool = defineTool({
    name: "noop",
    description: "Does nothing.",
    input,
    writes: false,
    handler,
  });
  const sink = createMemoryEventSink();
  const checkpoint = createCheckpoint({
    tools: [tool],
    policy: () => ({ decision: "allow" }),
    events: sink,
  });
  const raw = '{"order_id":"SU-88421","amount":42.5}';

  const byHand = async (text: string) => handler(input.parse(JSON.parse(text)));
  // The same duties the checkpoint has, written inline: record four events, check the policy,
  // catch a throw, serialise the output. Shows what the checkpoint's structure itself costs.
  const log: unknown[] = [];
  const policy = (_name: string) => ({ decision: "allow" as const });
  const byHandWithDuties = async (text: string, i: number) => {
    const at = Date.now();
    log.push({ type: "requested", callId: `call_${i}`, rawArguments: text, at });
    const args = input.parse(JSON.parse(text));
    const verdict = policy("noop");
    log.push({
      type: "decided",
      callId: `call_${i}`,
      decision: verdict.decision,
      args,
      at: Date.now(),
    });
    log.push({ type: "started", callId: `call_${i}`, at: Date.now() });
    let output: unknown;
    try {
      output = await handler(args);
    } catch (error) {
      output = String(error);
    }
    log.push({
      type: "finished",
      callId: `call_${i}`,
      output: JSON.stringify(output),
      at: Date.now(),
    });
    if (log.length > 10_000) log.length = 0;
    return { callId: `call_${i}`, status: "ok", output };
  };

  const measure = async (fn: (i: number) => Promise<unknown>, n: number): Promise<number[]> => {
    const durations = new Array<number>(n);
    for (let i = 0; i < n; i += 1) {
      const start = performance.now();
      await fn(i);
      durations[i] = performance.now() - start;
    }
    return durations;
  };

  const dispatchOne = async (i: number) => {
    const result = await checkpoint.dispatch({ id: `call_${i}`, name: "noop", arguments: raw });
    if (result.status !== "ok") throw new Error(`unexpected ${result.status}`);
    if (sink.events.length > 10_000) sink.events.length = 0;
  };
  await measure(dispatchOne, warmup);
  await measure(() => byHand(raw), warmup);
  // Interleave rounds so that neither side gets a quieter machine.
  const checkpointTimes: number[] = [];
  const baselineTimes: number[] = [];
  const dutiesTimes: number[] = [];
  await measure((i) => byHandWithDuties(raw, i), warmup);
  for (let round = 0; round < 5; round += 1) {
    checkpointTimes.push(...(await measure(dispatchOne, calls / 5)));
    baselineTimes.push(...(await measure(() => byHand(raw), calls / 5)));
    dutiesTimes.push(...(await measure((i) => byHandWithDuties(raw, i), calls / 5)));
  }
  const cp = summarise(checkpointTimes);
  const base = summarise(baselineTimes);
  const duties = summarise(dutiesTimes);
  const ratio = cp.medianUs / base.medianUs;
  console.log("bench/checkpoint: no-op tool, allow policy, memory sink");
  console.log(
    `  checkpoint.dispatch  median ${us(cp.medianUs)}  p99 ${us(cp.p99Us)}  ${Math.round(cp.perSecond).toLocaleString("en-US")} calls/s`,
  );
  console.log(
    `  by hand              median ${us(base.medianUs)}  p99 ${us(base.p99Us)}  ${Math.round(base.perSecond).toLocaleString("en-US")} calls/s`,
  );
  console.log(
    `  by hand + events     median ${us(duties.medianUs)}  p99 ${us(duties.p99Us)}  ${Math.round(duties.perSecond).toLocaleString("en-US")} calls/s`,
  );
  console.log(
    `  checkpoint / by hand with the same four events = ${(cp.medianUs / duties.medianUs).toFixed(2)}x`,
  );
  console.log(
    `  added per call (median) ${us(cp.medianUs - base.medianUs)}; checkpoint / by hand = ${ratio.toFixed(2)}x (target <= 2x)`,
  );
  benchSecretScan();
}
