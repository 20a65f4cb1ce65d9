import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createAuditSigner } from "../src/audit/create-audit-signer.js";
import { createCheckpoint } from "../src/checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../src/checkpoint/memory-event-sink.js";
import type { ToolCall } from "../src/checkpoint/tool-result.js";
import { createHarness } from "../src/loop/create-harness.js";
import type { ModelScript, ScriptedTurn } from "../src/model/model-script.js";
import { createPolicyEngine } from "../src/policy/policy-engine.js";
import type { AttestationSigner } from "../src/store/audit-attestation.js";
import { openStore } from "../src/store/open-store.js";
import { defineTool } from "../src/tool/define-tool.js";
import { benchLoopBudget } from "./loop-budget.js";
import { benchLoopCeiling } from "./loop-ceiling.js";
import { benchLoopMemory } from "./loop-memory.js";
import { benchLoopPeer } from "./loop-peer.js";
import { benchLoopProfile } from "./loop-profile.js";
import { benchLoopWarmup } from "./loop-warmup.js";
import { median, us } from "./stats.js";
import { timedModel } from "./timed-model.js";
import { timedStore } from "./timed-store.js";

const TURNS = 100;
const CALLS_PER_TURN = 10;
const CALLS = TURNS * CALLS_PER_TURN;
const ROUNDS = 5;
const WARMUP_RUNS = 6;
const TARGET_US = 60;

const input = z.object({ n: z.number() });
const noopHandler = ({ n }: { n: number }) => n;
const noop = defineTool({
  name: "noop",
  description: "Does nothing.",
  input,
  writes: false,
  handler: noopHandler,
});

/** 100 assistant turns of 10 no-op calls each, then one closing text turn. */
function benchScript(): ModelScript {
  const turns: ScriptedTurn[] = [];
  for (let t = 0; t < TURNS; t += 1) {
    turns.push({
      text: `Turn ${t}.`,
      toolCalls: Array.from({ length: CALLS_PER_TURN }, (_, c) => ({
        id: `call_${t}_${c}`,
        name: "noop",
        arguments: `{"n":${t * CALLS_PER_TURN + c}}`,
      })),
    });
  }
  turns.push({ text: "All done.", toolCalls: [] });
  return { source: "bench/loop", turns };
}

interface HarnessRound {
  readonly wallMs: number;
  /** CPU time of this process during the run (user + system): less swayed by other processes. */
  readonly cpuMs: number;
  readonly modelMs: number;
  readonly storeMs: number;
  readonly byMethod: Map<string, number>;
}

/**
 * One harness run. With `timeStore`, every store call goes through a timing proxy (its own cost
 * lands in the run): such rounds give the breakdown by store method, never the headline figure.
 */
async function harnessRound(
  url: string,
  policy: unknown,
  {
    timeStore = false,
    signer,
    yieldEachTurn = true,
    v3 = false,
  }: {
    timeStore?: boolean;
    signer?: AttestationSigner;
    yieldEachTurn?: boolean;
    v3?: boolean;
  } = {},
): Promise<HarnessRound> {
  const raw = await openStore(url, signer ? { signer } : {});
  const { store, byMethod } = timeStore
    ? timedStore(raw)
    : { store: raw, byMethod: new Map<string, number>() };
  const { model, spentMs } = timedModel(benchScript(), { yieldEachTurn, v3 });
  const harness = createHarness({
    model,
    tools: [noop],
    policy: policy as Parameters<typeof createHarness>[0]["policy"],
    store,
    // Above the work to do: reaching maxToolCallsPerRun ends a run even before its closing text turn.
    limits: {
      maxTurns: TURNS + 1,
      maxToolCallsPerRun: CALLS + 1,
      maxToolCallsPerBatch: CALLS_PER_TURN,
    },
  });
  const start = performance.now();
  const cpu = process.cpuUsage();
  const result = await harness.run("Run the no-ops.");
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  if (result.status !== "completed")
    throw new Error(`bench run ended ${result.status}: ${result.text}`);
  await raw.close();
  const storeMs = [...byMethod.values()].reduce((a, b) => a + b, 0);
  return { wallMs, cpuMs, modelMs: spentMs(), storeMs, byMethod };
}

/** The same 1,000 calls through the checkpoint alone, in batches of 10, with or without the store. */
async function checkpointRound(
  dir: string,
  round: number,
  policy: unknown,
  withStore: boolean,
  signer?: AttestationSigner,
) {
  const store = withStore
    ? await openStore(`sqlite:${join(dir, `checkpoint-${round}.db`)}`, signer ? { signer } : {})
    : undefined;
  const session = store
    ? (await store.createSession({ principal: "agent", configHash: "" })).id
    : "s";
  const checkpoint = createCheckpoint({
    tools: [noop],
    policy: policy as Parameters<typeof createCheckpoint>[0]["policy"],
    ...(store ? { store } : { events: createMemoryEventSink() }),
  });
  const batches: ToolCall[][] = benchScript()
    .turns.slice(0, TURNS)
    .map((t) => t.toolCalls.map((c) => ({ ...c })));
  const start = performance.now();
  for (const batch of batches) {
    const results = await checkpoint.dispatchBatch(batch, { sessionId: session, runId: "bench" });
    if (results.some((r) => r.status !== "ok")) throw new Error("a bench call did not succeed");
    // The worst case of docket run's signing: one attestation for every batch of 10 calls.
    if (signer) await store?.attest();
  }
  const ms = performance.now() - start;
  await store?.close();
  return ms;
}

function directRound(): number {
  let sink = 0;
  const start = performance.now();
  for (let i = 0; i < CALLS; i += 1) sink += noopHandler({ n: i });
  const ms = performance.now() - start;
  if (sink < 0) throw new Error("unreachable");
  return ms;
}

/**
 * Harness overhead per tool call: a scripted model returning 100 turns of 10 no-op calls (then a
 * closing text turn), an allow policy, a SQLite store with the audit trail on. Overhead per call =
 * (run wall time - time in the model stub) / 1,000, median of 5 runs, beside calling the no-op
 * function directly 1,000 times. Also splits where the time goes: the checkpoint alone, the
 * checkpoint with the store, and the store calls the loop itself makes.
 */
async function benchHarness(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "docket-bench-loop-"));
  try {
    const policy = await createPolicyEngine({
      layers: [{ name: "project", rules: [{ decision: "allow", tool: "noop" }] }],
    });
    // Warm-up: V8 needs a few runs of 1,000 calls before the code is optimised (the first run is
    // about three times slower than the fifth); then the policy engine's caches, SQLite pages.
    const fileUrl = (round: number) => `sqlite:${join(dir, `harness-${round}.db`)}`;
    // What docket run does: sign an attestation per batch, copied to a digest log (docs/audit.md).
    const audit = await createAuditSigner({
      keyFile: join(dir, "audit-key.pem"),
      digests: join(dir, "audit-digests.jsonl"),
      env: {},
    });
    let delivered = 0;
    const signer: AttestationSigner = {
      keyId: audit.keyId,
      sign: (body) => audit.sign(body),
      deliver: (checkpoints) => {
        delivered += checkpoints.length;
        return audit.deliver(checkpoints);
      },
    };
    for (let run = 1; run <= WARMUP_RUNS; run += 1) {
      await harnessRound(fileUrl(-run), policy);
      await harnessRound(fileUrl(-run - 100), policy, { signer });
      await harnessRound(":memory:", policy);
      await harnessRound(fileUrl(-run - 200), policy, { v3: true });
    }
    await checkpointRound(dir, -1, policy, true);
    await checkpointRound(dir, -2, policy, false);
    await checkpointRound(dir, -3, policy, true, signer);

    const harness: HarnessRound[] = [];
    const harnessV3: HarnessRound[] = [];
    const signed: HarnessRound[] = [];
    let lastRunAttestations = 0;
    const turning: HarnessRound[] = [];
    const turningSigned: HarnessRound[] = [];
    let turningAttestations = 0;
    const timed: HarnessRound[] = [];
    const inMemory: HarnessRound[] = [];
    const withStore: number[] = [];
    const withSigning: number[] = [];
    const alone: number[] = [];
    const direct: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      harness.push(await harnessRound(fileUrl(round), policy));
      harnessV3.push(await harnessRound(fileUrl(round + 400), policy, { v3: true }));
      delivered = 0;
      signed.push(await harnessRound(fileUrl(round + 100), policy, { signer }));
      lastRunAttestations = delivered;
      turning.push(await harnessRound(fileUrl(round + 200), policy, { yieldEachTurn: true }));
      delivered = 0;
      turningSigned.push(
        await harnessRound(fileUrl(round + 300), policy, { signer, yieldEachTurn: true }),
      );
      turningAttestations = delivered;
      timed.push(await harnessRound(fileUrl(round + ROUNDS), policy, { timeStore: true }));
      inMemory.push(await harnessRound(":memory:", policy));
      withStore.push(await checkpointRound(dir, round, policy, true));
      withSigning.push(await checkpointRound(dir, round + 100, policy, true, signer));
      alone.push(await checkpointRound(dir, round + ROUNDS, policy, false));
      direct.push(directRound());
    }

    const perCallUs = (ms: number) => (ms * 1000) / CALLS;
    const overhead = median(harness.map((h) => perCallUs(h.wallMs - h.modelMs)));
    const overheadV3 = median(harnessV3.map((h) => perCallUs(h.wallMs - h.modelMs)));
    const cpuV3 = median(harnessV3.map((h) => perCallUs(h.cpuMs)));
    const overheadSigned = median(signed.map((h) => perCallUs(h.wallMs - h.modelMs)));
    const cpuUnsigned = median(harness.map((h) => perCallUs(h.cpuMs)));
    const turningUs = median(turning.map((h) => perCallUs(h.wallMs - h.modelMs)));
    const turningSignedUs = median(turningSigned.map((h) => perCallUs(h.wallMs - h.modelMs)));
    const turningCpu = median(turning.map((h) => perCallUs(h.cpuMs)));
    const turningSignedCpu = median(turningSigned.map((h) => perCallUs(h.cpuMs)));
    const cpuSigned = median(signed.map((h) => perCallUs(h.cpuMs)));
    const wall = median(harness.map((h) => h.wallMs));
    const model = median(harness.map((h) => h.modelMs));
    const overheadInMemory = median(inMemory.map((h) => perCallUs(h.wallMs - h.modelMs)));
    const storeInHarness = median(timed.map((h) => perCallUs(h.storeMs)));
    const overheadTimed = median(timed.map((h) => perCallUs(h.wallMs - h.modelMs)));
    const checkpointStore = median(withStore.map(perCallUs));
    const checkpointSigned = median(withSigning.map(perCallUs));
    const checkpointAlone = median(alone.map(perCallUs));
    const directUs = median(direct.map(perCallUs));
    const methods = new Map<string, number[]>();
    for (const h of timed) {
      for (const [name, ms] of h.byMethod) methods.set(name, [...(methods.get(name) ?? []), ms]);
    }
    const topMethods = [...methods]
      .map(([name, values]) => [name, perCallUs(median(values))] as const)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 6);

    console.log(
      `bench/loop: ${TURNS} turns x ${CALLS_PER_TURN} no-op calls, a LanguageModelV4 scripted model, allow policy, SQLite store with audit, median of ${ROUNDS} runs`,
    );
    console.log(`  run wall ${wall.toFixed(1)} ms, of which model stub ${model.toFixed(1)} ms`);
    console.log(
      `  harness overhead per call  ${us(overhead)}  (target <= ${TARGET_US} µs: ${overhead <= TARGET_US ? "met" : "MISSED"})`,
    );
    console.log(
      `    the ${ROUNDS} runs, after ${WARMUP_RUNS} warm-up runs: ${harness.map((h) => perCallUs(h.wallMs - h.modelMs).toFixed(1)).join(", ")} µs`,
    );
    console.log(
      `  model interface: V4 (the figure above) ${us(overhead)}, V3 through docket's adapter ${us(overheadV3)} (${overheadV3 - overhead >= 0 ? "+" : ""}${(overheadV3 - overhead).toFixed(2)} µs a call); CPU ${us(cpuUnsigned)} vs ${us(cpuV3)}`,
    );
    console.log(
      `  same run, signed          ${us(overheadSigned)}  (an attestation per batch, at most one per 200 ms: ${lastRunAttestations} in the last run, to a digest file: ${overheadSigned - overhead >= 0 ? "+" : ""}${(overheadSigned - overhead).toFixed(2)} µs a call; target <= 5 µs: ${overheadSigned - overhead <= 5 ? "met" : "MISSED"})`,
    );
    console.log(
      `    CPU time per call (this process only, steadier on a shared machine): unsigned ${us(cpuUnsigned)}, signed ${us(cpuSigned)} (${cpuSigned - cpuUnsigned >= 0 ? "+" : ""}${(cpuSigned - cpuUnsigned).toFixed(2)} µs)`,
    );
    console.log(
      `    the ${ROUNDS} signed runs: ${signed.map((h) => perCallUs(h.wallMs - h.modelMs).toFixed(1)).join(", ")} µs`,
    );
    console.log(
      `  the loop turning each turn (as with a real model: one commit per batch): unsigned ${us(turningUs)}, signed ${us(turningSignedUs)} (${turningSignedUs - turningUs >= 0 ? "+" : ""}${(turningSignedUs - turningUs).toFixed(2)} µs a call, ${turningAttestations} checkpoints a run); CPU ${us(turningCpu)} vs ${us(turningSignedCpu)} (${turningSignedCpu - turningCpu >= 0 ? "+" : ""}${(turningSignedCpu - turningCpu).toFixed(2)} µs)`,
    );
    console.log(`  direct function call      ${us(directUs)}`);
    console.log(
      `  same run, SQLite :memory: ${us(overheadInMemory)}  (no file I/O: the CPU cost of loop, checkpoint and store)`,
    );
    console.log("  where a call's time goes (medians per call):");
    console.log(`    checkpoint alone, memory sink            ${us(checkpointAlone)}`);
    console.log(
      `    checkpoint + SQLite store, commit/batch  ${us(checkpointStore)}  (dispatchBatch alone: it flushes every batch)`,
    );
    console.log(
      `    the same + store.attest() per batch ${us(checkpointSigned)}  (${checkpointSigned - checkpointStore >= 0 ? "+" : ""}${(checkpointSigned - checkpointStore).toFixed(2)} µs a call: a checkpoint in a transaction of its own after every 10 calls, the worst case; the harness signs inside the batch commit)`,
    );
    console.log(
      `    store calls in the harness run           ${us(storeInHarness)}  (awaited time, estimate, from runs with every store call timed: ${us(overheadTimed)} a call with the timing)`,
    );
    console.log(
      `    outside awaited store calls              ${us(overheadTimed - storeInHarness)}  (loop and checkpoint, and the store's queued commits, which no store call awaits: the profile part splits them)`,
    );
    console.log(
      `    by store method: ${topMethods.map(([name, value]) => `${name} ${us(value)}`).join(", ")}`,
    );
    await audit.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PARTS = ["harness", "peer", "profile", "memory", "budget", "warmup", "ceiling"] as const;
/** What `npm run bench loop` runs when no part is named: not the budget, warm-up or ceiling. */
const DEFAULT_PARTS = ["harness", "peer", "profile", "memory"] as const;

/**
 * `npm run bench loop`: the harness's overhead per call and where it goes (part `harness`),
 * docket beside the AI SDK's generateText per run length (`peer`), docket's CPU per call by layer
 * from a sampling profile of warm runs (`profile`), and peak memory at 1,000
 * turns (`memory`); what the read targets leave the store against its floor (`budget`), how a
 * process's CPU a call moves from its first run to warm code (`warmup`) and what they leave any
 * trail (`ceiling`), run only when asked for. `DOCKET_BENCH_LOOP=peer,memory` picks parts;
 * `DOCKET_BENCH_QUICK=1` runs one process per system and run length, and leaves out the slowest
 * figures.
 */
export async function benchLoop({
  env = process.env,
}: {
  env?: NodeJS.ProcessEnv;
} = {}): Promise<void> {
  const wanted = (env.DOCKET_BENCH_LOOP ?? DEFAULT_PARTS.join(","))
    .split(",")
    .map((part) => part.trim());
  const unknown = wanted.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length > 0)
    throw new Error(
      `DOCKET_BENCH_LOOP: unknown part ${unknown.join(", ")}; parts: ${PARTS.join(", ")}`,
    );
  const quick = env.DOCKET_BENCH_QUICK === "1";
  if (wanted.includes("harness")) await benchHarness();
  if (wanted.includes("peer"))
    await benchLoopPeer(quick ? { lengths: [1, 10, 100], processes: 1 } : {});
  if (wanted.includes("profile"))
    await benchLoopProfile(quick ? { lengths: [10], warmupRuns: 5, calls: 2000 } : {});
  if (wanted.includes("memory"))
    await benchLoopMemory(quick ? { withPeer: false, longTurns: 0 } : {});
  if (wanted.includes("budget")) await benchLoopBudget(quick ? { rounds: 1, calls: 2000 } : {});
  if (wanted.includes("warmup")) await benchLoopWarmup(quick ? { processes: 1 } : {});
  if (wanted.includes("ceiling")) await benchLoopCeiling(quick ? { rounds: 1, lengths: [10] } : {});
}
