import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { StreamTurnOptions, TurnOutput } from "./stream-turn.js";
import type { TranscriptToolCall } from "./transcript-message.js";
import { turnCallOptions } from "./turn-call-options.js";

/** Options for one turn asked for whole: a streamed turn's, without anyone reading the text. */
export type GenerateTurnOptions = Omit<StreamTurnOptions, "onText">;

/**
 * Whether a model can be asked for a whole turn (doGenerate). Every model docket ships or adapts
 * can; an object put together by hand may only stream, and then it keeps streaming.
 *
 * @example
 * ```ts
 * import type { LanguageModelV4 } from "@ai-sdk/provider";
 * declare const model: LanguageModelV4;
 * const whole = generatesTurns(model);
 * ```
 */
export function generatesTurns(model: LanguageModelV4): boolean {
  return typeof (model as { doGenerate?: unknown }).doGenerate === "function";
}

/**
 * Ask the model for one turn over its non-streaming interface (doGenerate): for a run nobody
 * watches, no stream of parts is built and read. The turn is the one streamTurn would collect from
 * the same reply: its text, its tool calls with their argument text exactly as the provider gave
 * it (never re-serialised), the token usage and the finish reason. Errors and aborts throw, as
 * they do from streamTurn.
 *
 * @example
 * ```ts
 * import type { LanguageModelV4, LanguageModelV4FunctionTool, LanguageModelV4Prompt } from "@ai-sdk/provider";
 * declare const model: LanguageModelV4;
 * declare const prompt: LanguageModelV4Prompt;
 * declare const tools: LanguageModelV4FunctionTool[];
 * const turn = await generateTurn(model, { prompt, tools, signal: AbortSignal.timeout(60_000) });
 * ```
 */
export async function generateTurn(
  model: LanguageModelV4,
  options: GenerateTurnOptions,
): Promise<TurnOutput> {
  const result = await model.doGenerate(turnCallOptions(options));
  let text = "";
  const toolCalls: TranscriptToolCall[] = [];
  for (const part of result.content) {
    switch (part.type) {
      case "text":
        text += part.text;
        break;
      case "tool-call":
        // A call the provider ran itself (a hosted search) is not docket's to run.
        if (part.providerExecuted) break;
        toolCalls.push({ id: part.toolCallId, name: part.toolName, arguments: part.input });
        break;
      // The model's reasoning, files, sources and provider results are not part of docket's
      // transcript: the reply is its text and its tool calls, as on the stream path.
      default:
        break;
    }
  }
  return {
    text,
    toolCalls,
    inputTokens: result.usage.inputTokens.total ?? 0,
    outputTokens: result.usage.outputTokens.total ?? 0,
    finishReason: result.finishReason.unified,
  };
}
