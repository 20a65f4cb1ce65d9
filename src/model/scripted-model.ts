import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { DocketError } from "../errors/docket-error.js";
import type { ModelScript, ScriptedTurn, TurnCondition } from "./model-script.js";

/** A language model that replays a script, and remembers what it was sent. */
export interface ScriptedModel extends LanguageModelV4 {
  /** Every request, in order. */
  readonly requests: LanguageModelV4CallOptions[];
}

function usageOf(turn: ScriptedTurn): LanguageModelV4Usage {
  const output =
    turn.usage?.output ??
    Math.ceil(((turn.text ?? "").length + JSON.stringify(turn.toolCalls).length) / 4);
  const input = turn.usage?.input ?? 100;
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}

/**
 * Pick the turn for a request: the number of assistant messages already in the prompt. So a
 * resumed session, even in a new process, continues where it stopped. A turn with `when` gives
 * way to its `else` unless the results in the prompt match.
 */
function turnFor(script: ModelScript, options: LanguageModelV4CallOptions): ScriptedTurn {
  const index = options.prompt.filter((message) => message.role === "assistant").length;
  let turn = script.turns[index];
  if (!turn) {
    throw new DocketError(
      "script_exhausted",
      `The model script ${script.source} has ${script.turns.length} turns; turn ${index + 1} was requested.`,
    );
  }
  while (turn.when && !resultMatches(turn.when, options.prompt)) {
    if (!turn.else) {
      throw new DocketError(
        "script_no_branch",
        `The model script ${script.source}: turn ${index + 1} has no branch for the results it was sent.`,
      );
    }
    turn = turn.else;
  }
  if (turn.error) throw new DocketError("model_error", turn.error);
  return turn;
}

/** Whether the results the model was sent last (the prompt's last tool message) match. */
function resultMatches(condition: TurnCondition, prompt: LanguageModelV4Prompt): boolean {
  const results = prompt.findLast((message) => message.role === "tool")?.content ?? [];
  const parts = results.filter((part) => part.type === "tool-result");
  const part = condition.call
    ? parts.find((p) => p.toolCallId === condition.call)
    : parts[parts.length - 1];
  if (!part) return false;
  const error = part.output.type === "error-text" || part.output.type === "error-json";
  if (condition.result !== undefined && condition.result !== (error ? "error" : "ok")) return false;
  const text =
    "value" in part.output
      ? typeof part.output.value === "string"
        ? part.output.value
        : JSON.stringify(part.output.value)
      : "";
  return condition.contains === undefined || text.includes(condition.contains);
}

function contentOf(turn: ScriptedTurn): LanguageModelV4Content[] {
  const content: LanguageModelV4Content[] = [];
  if (turn.text) content.push({ type: "text", text: turn.text });
  for (const call of turn.toolCalls) {
    content.push({
      type: "tool-call",
      toolCallId: call.id,
      toolName: call.name,
      input: call.arguments,
    });
  }
  return content;
}

/** How a scripted model answers. */
export interface ScriptedModelOptions {
  /**
   * Yield to the event loop once per call before answering, as a reply over the network does
   * (default true). Only a bench that yields itself, outside the span it times, turns it off.
   */
  readonly yieldPerCall?: boolean;
}

/** One turn of the event loop: what a caller of a real model always gets before the reply. */
const nextTurnOfTheEventLoop = (): Promise<void> =>
  new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A model that replays scripted assistant turns: for tests and the offline demo. It speaks the
 * same LanguageModelV4 interface as the real providers, streaming or not, so everything after it
 * is the real loop. Each call yields to the event loop once before it answers: a model that never
 * yields lets work deferred to the event loop (the store's group commit) gather a whole run,
 * which no real model allows (issue 38).
 *
 * @example
 * ```ts
 * import { parseModelScript } from "./model-script.js";
 * const model = createScriptedModel(parseModelScript("turns:\n  - text: Hi\n", "inline"));
 * ```
 */
export function createScriptedModel(
  script: ModelScript,
  { yieldPerCall = true }: ScriptedModelOptions = {},
): ScriptedModel {
  const requests: LanguageModelV4CallOptions[] = [];
  return {
    specificationVersion: "v4",
    provider: "scripted",
    modelId: script.source,
    supportedUrls: {},
    requests,
    async doGenerate(options): Promise<LanguageModelV4GenerateResult> {
      requests.push(options);
      if (yieldPerCall) await nextTurnOfTheEventLoop();
      // After the wait, as a provider notices a cancel that came while its reply was on the way.
      options.abortSignal?.throwIfAborted();
      const turn = turnFor(script, options);
      return {
        content: contentOf(turn),
        finishReason: {
          unified: turn.toolCalls.length > 0 ? "tool-calls" : "stop",
          raw: undefined,
        },
        usage: usageOf(turn),
        warnings: [],
      };
    },
    async doStream(options): Promise<LanguageModelV4StreamResult> {
      requests.push(options);
      if (yieldPerCall) await nextTurnOfTheEventLoop();
      // After the wait, as a provider notices a cancel that came while its reply was on the way.
      options.abortSignal?.throwIfAborted();
      const turn = turnFor(script, options);
      const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (turn.text) {
        parts.push({ type: "text-start", id: "t0" });
        // Words as deltas, so a terminal shows the text arriving.
        for (const piece of turn.text.match(/\S+\s*|\s+/g) ?? [])
          parts.push({ type: "text-delta", id: "t0", delta: piece });
        parts.push({ type: "text-end", id: "t0" });
      }
      for (const call of turn.toolCalls) {
        parts.push({ type: "tool-input-start", id: call.id, toolName: call.name });
        parts.push({ type: "tool-input-delta", id: call.id, delta: call.arguments });
        parts.push({ type: "tool-input-end", id: call.id });
        parts.push({
          type: "tool-call",
          toolCallId: call.id,
          toolName: call.name,
          input: call.arguments,
        });
      }
      parts.push({
        type: "finish",
        usage: usageOf(turn),
        finishReason: {
          unified: turn.toolCalls.length > 0 ? "tool-calls" : "stop",
          raw: undefined,
        },
      });
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

/** The scripted model behind the AI SDK 6 interface, for tests and benches of the V3 path. */
export interface ScriptedModelV3 extends LanguageModelV3 {
  /** Every request, in order, as the V3 model received it. */
  readonly requests: LanguageModelV3CallOptions[];
}

/**
 * The same scripted model as a LanguageModelV3, so the adapter docket puts in front of AI SDK 6
 * models is exercised end to end. What a script produces (text, tool calls, a finish) has one
 * shape in V3 and V4, so only the version it declares differs.
 *
 * @example
 * ```ts
 * import { createHarness } from "../loop/create-harness.js";
 * declare const script: import("./model-script.js").ModelScript;
 * const harness = createHarness({ model: createScriptedModelV3(script) });
 * ```
 */
export function createScriptedModelV3(
  script: ModelScript,
  options: ScriptedModelOptions = {},
): ScriptedModelV3 {
  const model = createScriptedModel(script, options);
  return { ...model, specificationVersion: "v3" } as unknown as ScriptedModelV3;
}
