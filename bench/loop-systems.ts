import { join } from "node:path";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { z } from "zod";
import { createHarness } from "../src/loop/create-harness.js";
import { createPolicyEngine } from "../src/policy/policy-engine.js";
import { openStore } from "../src/store/open-store.js";
import { defineTool } from "../src/tool/define-tool.js";
import { leanTrailStore } from "./lean-trail.js";
import { logTrailStore } from "./log-trail.js";
import { CALLS_PER_TURN, CLOSING_TEXT, WORKLOAD_PROMPT } from "./loop-workload.js";
import { untrackedStore } from "./untracked-store.js";
import { type UnwrittenEvents, unwrittenStore } from "./unwritten-store.js";

/** A loop that runs the workload: docket's or a peer's. */
export interface LoopSystem {
  /** One run of `turns` turns against `model`; throws unless the whole workload was done. */
  run(model: LanguageModelV4, turns: number): Promise<void>;
  close(): Promise<void>;
}

/** The no-op tool's handler: what every system's tool runs for a call. */
export type NoopHandler = (args: { n: number }) => number;

const input = z.object({ n: z.number() });
const noopHandler: NoopHandler = ({ n }) => n;

/** How a docket system of the bench differs from docket with a read tool and its whole trail. */
export interface DocketVariant {
  /** A write tool: its intent is committed before its handler runs (the durable peer's case). */
  readonly writes?: boolean;
  /** No trail and no transcript batch kept: what docket costs beside a trail that costs nothing. */
  readonly untracked?: boolean;
  /** The trail made as today and never committed; `one-a-read`: one event a read call reaches it. */
  readonly unwritten?: UnwrittenEvents;
  /** docket's trail kept instead by the leanest store of the same promises (`leanTrailStore`). */
  readonly lean?: boolean;
  /** docket's trail kept in one row of one table a commit (`logTrailStore`, ADR 0102). */
  readonly log?: boolean;
}

/**
 * docket's systems in the bench, by the name a worker process is given (bench/loop-worker.ts):
 * with a read or a write tool, with its trail, with a store that keeps nothing per call, and
 * with its trail made and never committed, and with the leanest store of the same promises.
 *
 * @example
 * ```ts
 * const docket = await docketSystem({ store: "file", dir, ...DOCKET_SYSTEMS["docket-write-unwritten"] });
 * ```
 */
export const DOCKET_SYSTEMS = {
  docket: {},
  "docket-write": { writes: true },
  "docket-untracked": { untracked: true },
  "docket-write-untracked": { untracked: true, writes: true },
  "docket-unwritten": { unwritten: "all" },
  "docket-unwritten-one-event": { unwritten: "one-a-read" },
  "docket-write-unwritten": { unwritten: "all", writes: true },
  "docket-lean": { lean: true },
  "docket-write-lean": { lean: true, writes: true },
  "docket-log": { log: true },
  "docket-write-log": { log: true, writes: true },
} as const satisfies Record<string, DocketVariant>;

/** The most turns a docket bench run may have (its harness's limits are set above it). */
const MAX_TURNS = 10_000;

/**
 * docket: createHarness with an allow policy and a SQLite store (a file in `dir`, or
 * `:memory:`), audit trail on; the no-op tool a read, or with `writes` a write. The store, the
 * policy engine and the harness are made once and reused across runs, as a service keeps them
 * (issue 38); each run is a new session, its model the one the run is given. With `untracked`,
 * the store keeps nothing per call (`untrackedStore`); with `unwritten`, it takes every call as
 * today and commits none of it (`unwrittenStore`); with `lean`, the leanest store of the same
 * promises keeps it (`leanTrailStore`, in `dir`): the bench's bounds, not configurations.
 *
 * @example
 * ```ts
 * const docket = await docketSystem({ store: "file", dir });
 * await docket.run(workloadModel(workloadScript(10)).model, 10);
 * ```
 */
export async function docketSystem({
  store: kind,
  dir,
  handler = noopHandler,
  writes = false,
  untracked = false,
  unwritten,
  lean = false,
  log = false,
}: DocketVariant & {
  store: "file" | "memory";
  dir: string;
  handler?: NoopHandler;
}): Promise<LoopSystem> {
  const opened = await openStore(
    kind === "memory" ? ":memory:" : `sqlite:${join(dir, "docket.db")}`,
  );
  const store = log
    ? logTrailStore(opened, { path: join(dir, "log.db") })
    : lean
      ? leanTrailStore(opened, { path: join(dir, "lean.db") })
      : untracked
        ? untrackedStore(opened)
        : unwritten
          ? unwrittenStore(opened, { events: unwritten })
          : opened;
  const policy = await createPolicyEngine({
    layers: [{ name: "project", rules: [{ decision: "allow", tool: "noop" }] }],
  });
  let executed = 0;
  const noop = defineTool({
    name: "noop",
    description: "Does nothing.",
    input,
    writes,
    handler: (args: { n: number }) => {
      executed += 1;
      return handler(args);
    },
  });
  // One harness for every run: its model forwards each request to the model of the run at hand.
  let current: LanguageModelV4 | undefined;
  const model = (): LanguageModelV4 => {
    if (!current) throw new Error("No bench run is in progress.");
    return current;
  };
  const harness = createHarness({
    model: {
      specificationVersion: "v4",
      provider: "bench",
      modelId: "workload",
      supportedUrls: {},
      doGenerate: (options) => model().doGenerate(options),
      doStream: (options) => model().doStream(options),
    },
    tools: [noop],
    policy,
    store,
    // Above the work of the longest run: reaching a limit ends a run before its closing turn.
    limits: { maxTurns: MAX_TURNS + 1, maxToolCallsPerRun: MAX_TURNS * CALLS_PER_TURN + 1 },
  });
  return {
    async run(workload, turns) {
      if (turns > MAX_TURNS) throw new Error(`A bench run has at most ${MAX_TURNS} turns.`);
      const calls = turns * CALLS_PER_TURN;
      executed = 0;
      current = workload;
      const result = await harness.run(WORKLOAD_PROMPT).finally(() => {
        current = undefined;
      });
      if (result.status !== "completed" || result.text !== CLOSING_TEXT || executed !== calls)
        throw new Error(
          `docket's run ended ${result.status} after ${executed} calls: ${result.text}`,
        );
    },
    close: () => store.close(),
  };
}

/**
 * The AI SDK's own loop: generateText with a zod tool whose execute is the same handler, until
 * `stepCountIs(turns + 1)`. `ai` is loaded here, so a docket-only process never loads it.
 *
 * @example
 * ```ts
 * const sdk = await aiSdkSystem();
 * await sdk.run(workloadModel(workloadScript(10)).model, 10);
 * ```
 */
export async function aiSdkSystem({
  handler = noopHandler,
}: {
  handler?: NoopHandler;
} = {}): Promise<LoopSystem> {
  const { generateText, stepCountIs, tool } = await import("ai");
  return {
    async run(model, turns) {
      let executed = 0;
      const noop = tool({
        description: "Does nothing.",
        inputSchema: input,
        execute: (args: { n: number }) => {
          executed += 1;
          return handler(args);
        },
      });
      const result = await generateText({
        model,
        tools: { noop },
        prompt: WORKLOAD_PROMPT,
        stopWhen: stepCountIs(turns + 1),
      });
      if (result.text !== CLOSING_TEXT || executed !== turns * CALLS_PER_TURN)
        throw new Error(`the AI SDK's run ended "${result.text}" after ${executed} calls`);
    },
    close: async () => {},
  };
}
