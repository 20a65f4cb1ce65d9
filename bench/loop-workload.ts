import type {
  LanguageModelV4,
  LanguageModelV4Content,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { modelCallId } from "./model-call-id.js";
import { nextTurnOfTheEventLoop } from "./yielding-model.js";

/** Tool calls in every assistant turn of the workload. */
export const CALLS_PER_TURN = 10;

/** The closing assistant text: a run that ends on it did the whole workload. */
export const CLOSING_TEXT = "All done.";

/** What the workload asks for, the same for every system. */
export const WORKLOAD_PROMPT = "Run the no-ops.";

interface WorkloadTurn {
  readonly content: LanguageModelV4Content[];
  readonly parts: LanguageModelV4StreamPart[];
}

const usage: LanguageModelV4Usage = {
  inputTokens: { total: 100, noCache: 100, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 40, text: 40, reasoning: undefined },
};

function workloadTurn(text: string, calls: { id: string; input: string }[]): WorkloadTurn {
  const content: LanguageModelV4Content[] = [{ type: "text", text }];
  const parts: LanguageModelV4StreamPart[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t0" },
    { type: "text-delta", id: "t0", delta: text },
    { type: "text-end", id: "t0" },
  ];
  for (const { id, input } of calls) {
    content.push({ type: "tool-call", toolCallId: id, toolName: "noop", input });
    parts.push({ type: "tool-input-start", id, toolName: "noop" });
    parts.push({ type: "tool-input-delta", id, delta: input });
    parts.push({ type: "tool-input-end", id });
    parts.push({ type: "tool-call", toolCallId: id, toolName: "noop", input });
  }
  const unified = calls.length > 0 ? ("tool-calls" as const) : ("stop" as const);
  parts.push({ type: "finish", usage, finishReason: { unified, raw: undefined } });
  return { content, parts };
}

/**
 * The workload's call ids: `model` (the default), random-looking as a model's are; `counted`
 * (`call_0_0`, `call_0_1`, …), this bench's ids before 2026-12-05, for figures comparable with
 * the older ones in docs/benchmarks.md.
 */
export type WorkloadIds = "model" | "counted";

/**
 * The ids `DOCKET_BENCH_IDS` asks for (`counted` or `model`); `model` when it is unset.
 *
 * @example
 * ```ts
 * workloadIds({ DOCKET_BENCH_IDS: "counted" }); // "counted"
 * ```
 */
export function workloadIds(env: NodeJS.ProcessEnv = process.env): WorkloadIds {
  const wanted = env.DOCKET_BENCH_IDS ?? "model";
  if (wanted === "model" || wanted === "counted") return wanted;
  throw new Error(`DOCKET_BENCH_IDS: ${JSON.stringify(wanted)}; use model or counted`);
}

/** A fake model's replies, built once and replayed by every model made from them. */
export interface WorkloadScript {
  readonly turns: number;
  readonly replies: readonly WorkloadTurn[];
}

/**
 * `turns` assistant turns of {@link CALLS_PER_TURN} calls of the no-op tool `noop` with
 * `{"n":…}`, then one closing text turn. Each call's id is `ids`' (see {@link WorkloadIds}).
 *
 * @example
 * ```ts
 * workloadScript(3).replies.length; // 4
 * workloadScript(1, { ids: "counted" }); // its calls are call_0_0 … call_0_9
 * ```
 */
export function workloadScript(
  turns: number,
  { ids = workloadIds() }: { ids?: WorkloadIds } = {},
): WorkloadScript {
  const replies: WorkloadTurn[] = [];
  for (let t = 0; t < turns; t += 1) {
    const calls = Array.from({ length: CALLS_PER_TURN }, (_, c) => ({
      id: ids === "model" ? modelCallId(t * CALLS_PER_TURN + c) : `call_${t}_${c}`,
      input: `{"n":${t * CALLS_PER_TURN + c}}`,
    }));
    replies.push(workloadTurn(`Turn ${t}.`, calls));
  }
  replies.push(workloadTurn(CLOSING_TEXT, []));
  return { turns, replies };
}

/** A zero-latency model and the time spent inside it. */
export interface WorkloadModel {
  readonly model: LanguageModelV4;
  /** Milliseconds spent in doGenerate / doStream (building the reply, not reading it). */
  spentMs(): number;
}

/**
 * A LanguageModelV4 that replays the script with no latency, streaming (docket's loop) or not
 * (the AI SDK's generateText), the way docket's scripted model does. Each call first yields to
 * the event loop once, as a network reply does: without it, work a system defers to the event
 * loop (docket's group commit) would gather a whole run's calls, which no real model allows.
 * `yieldPerCall: false` gives the old, flattering model. Unlike docket's scripted model it keeps
 * none of the requests and picks the reply by a counter, so neither the bench's memory nor its
 * time per turn grows with the history: what grows is the system's own. `onLastReply` is called
 * when the closing reply is asked for, while the system holds the whole run's history.
 *
 * @example
 * ```ts
 * const { model } = workloadModel(workloadScript(10));
 * ```
 */
export function workloadModel(
  script: WorkloadScript,
  { onLastReply, yieldPerCall = true }: { onLastReply?: () => void; yieldPerCall?: boolean } = {},
): WorkloadModel {
  let next = 0;
  let spent = 0;
  const reply = (abortSignal: AbortSignal | undefined): WorkloadTurn => {
    abortSignal?.throwIfAborted();
    const turn = script.replies[next];
    if (!turn) throw new Error(`the workload has ${script.replies.length} replies; one more asked`);
    next += 1;
    // Outside the model's timed span: the whole history is held by the system right now.
    if (next === script.replies.length) onLastReply?.();
    return turn;
  };
  const model: LanguageModelV4 = {
    specificationVersion: "v4",
    provider: "bench",
    modelId: `workload-${script.turns}`,
    supportedUrls: {},
    async doGenerate(options) {
      if (yieldPerCall) await nextTurnOfTheEventLoop();
      const start = performance.now();
      const turn = reply(options.abortSignal);
      const unified = turn.content.length > 1 ? ("tool-calls" as const) : ("stop" as const);
      const out = {
        content: turn.content,
        finishReason: { unified, raw: undefined },
        usage,
        warnings: [],
      };
      spent += performance.now() - start;
      return out;
    },
    async doStream(options) {
      if (yieldPerCall) await nextTurnOfTheEventLoop();
      const start = performance.now();
      const { parts } = reply(options.abortSignal);
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      spent += performance.now() - start;
      return { stream };
    },
  };
  return { model, spentMs: () => spent };
}
