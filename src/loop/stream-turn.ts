import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Prompt,
} from "@ai-sdk/provider";
import type { TranscriptToolCall } from "./transcript-message.js";
import { turnCallOptions } from "./turn-call-options.js";

/** What one assistant turn produced. */
export interface TurnOutput {
  readonly text: string;
  readonly toolCalls: TranscriptToolCall[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly finishReason: string;
}

/** Options for one streamed turn. */
export interface StreamTurnOptions {
  readonly prompt: LanguageModelV4Prompt;
  readonly tools: readonly LanguageModelV4FunctionTool[];
  readonly signal: AbortSignal | undefined;
  readonly maxOutputTokens?: number;
  /** V4's `reasoning` call option. */
  readonly reasoning?: LanguageModelV4CallOptions["reasoning"];
  /** JSON with a schema, when the run asks for a structured final answer. */
  readonly responseFormat?: LanguageModelV4CallOptions["responseFormat"];
  /** Called with each piece of text as it arrives. */
  readonly onText?: (delta: string) => void;
}

/** Thrown when the stream itself carries an error part. */
export class StreamError extends Error {
  constructor(readonly error: unknown) {
    super(
      error instanceof Error
        ? error.message
        : typeof (error as { message?: unknown })?.message === "string"
          ? (error as { message: string }).message
          : String(error),
    );
    this.name = "StreamError";
  }
}

/**
 * Ask the model for one turn over its streaming interface, collecting text and tool calls. The
 * argument text of each call is the concatenation of its input deltas when the provider streams
 * them: the bytes the model produced, not a re-serialisation.
 *
 * @example
 * ```ts
 * import type { LanguageModelV4, LanguageModelV4FunctionTool, LanguageModelV4Prompt } from "@ai-sdk/provider";
 * declare const model: LanguageModelV4;
 * declare const prompt: LanguageModelV4Prompt;
 * declare const tools: LanguageModelV4FunctionTool[];
 * const signal = AbortSignal.timeout(60_000);
 * const turn = await streamTurn(model, { prompt, tools, signal, onText: (t) => process.stdout.write(t) });
 * ```
 */
export async function streamTurn(
  model: LanguageModelV4,
  options: StreamTurnOptions,
): Promise<TurnOutput> {
  const { stream } = await model.doStream(turnCallOptions(options));
  let text = "";
  const deltas = new Map<string, string>();
  const toolCalls: TranscriptToolCall[] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let finishReason = "other";
  const reader = stream.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value: part } = await reader.read();
      if (done) {
        finished = true;
        break;
      }
      switch (part.type) {
        case "text-delta":
          text += part.delta;
          options.onText?.(part.delta);
          break;
        case "tool-input-delta":
          deltas.set(part.id, (deltas.get(part.id) ?? "") + part.delta);
          break;
        case "tool-call": {
          if (part.providerExecuted) break;
          const streamed = deltas.get(part.toolCallId);
          // A model may reuse an id: the next call's deltas start afresh.
          deltas.delete(part.toolCallId);
          toolCalls.push({
            id: part.toolCallId,
            name: part.toolName,
            arguments: streamed ?? part.input,
          });
          break;
        }
        case "finish":
          inputTokens = part.usage.inputTokens.total ?? 0;
          outputTokens = part.usage.outputTokens.total ?? 0;
          finishReason = part.finishReason.unified;
          break;
        case "error":
          throw new StreamError(part.error);
        // Keep-alives, provider-specific custom parts and the model's reasoning (text or files)
        // are not part of docket's transcript: the reply is its text and its tool calls.
        case "ping":
        case "custom":
        case "reasoning-file":
          break;
        default:
          break;
      }
    }
  } finally {
    // A stream read to its end needs nothing more (releasing the lock of a closed reader makes a
    // rejected promise every turn); one left early is cancelled, so the provider stops sending.
    if (!finished) reader.cancel().catch(() => {});
  }
  return { text, toolCalls, inputTokens, outputTokens, finishReason };
}
