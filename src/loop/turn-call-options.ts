import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import type { StreamTurnOptions } from "./stream-turn.js";

/**
 * The call options of one turn, the same whether the model is asked to stream (doStream) or to
 * answer whole (doGenerate), so that both paths send the provider the same request.
 *
 * @example
 * ```ts
 * const signal = AbortSignal.timeout(60_000);
 * const call = turnCallOptions({ prompt: [], tools: [], signal, maxOutputTokens: 1024 });
 * call.maxOutputTokens; // 1024
 * ```
 */
export function turnCallOptions(options: StreamTurnOptions): LanguageModelV4CallOptions {
  return {
    prompt: options.prompt,
    tools: options.tools.length > 0 ? [...options.tools] : undefined,
    abortSignal: options.signal,
    ...(options.maxOutputTokens ? { maxOutputTokens: options.maxOutputTokens } : {}),
    ...(options.reasoning ? { reasoning: options.reasoning } : {}),
    ...(options.responseFormat ? { responseFormat: options.responseFormat } : {}),
  };
}
