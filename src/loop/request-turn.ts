import type { LanguageModelV4 } from "@ai-sdk/provider";
import { classifyModelError, type ModelFailure } from "../model/model-failure.js";
import { generatesTurns, generateTurn } from "./generate-turn.js";
import { StreamError, type StreamTurnOptions, streamTurn, type TurnOutput } from "./stream-turn.js";

/** How a turn request ended: a turn, or a failure already explained. */
export type TurnRequestOutcome =
  | { readonly status: "ok"; readonly turn: TurnOutput; readonly attempts: number }
  | { readonly status: "failed"; readonly failure: ModelFailure; readonly attempts: number };

/** One turn's request: a streamed turn's options, and how the model is asked. */
export interface RequestTurnOptions extends StreamTurnOptions {
  /**
   * `"generate"` asks the model for the whole turn (doGenerate) when it can, with no stream to
   * parse: for a run nobody reads as it comes (`onText` is then never called). Default
   * `"stream"`.
   */
  readonly mode?: "stream" | "generate";
}

/** Retry settings for model requests. */
export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  readonly maxRetries?: number;
  readonly baseDelayMs?: number;
  /** No single wait is longer, whatever retry-after says. Default 30 s. */
  readonly maxDelayMs?: number;
  /** Injected in tests. */
  readonly sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
  readonly onRetry?: (failure: ModelFailure, attempt: number, delayMs: number) => void;
}

function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Request one turn, retrying rate limits, server errors and unreachable endpoints a bounded
 * number of times with exponential backoff, honouring retry-after. A turn that already streamed
 * text is not retried (the reader has seen part of it). `mode: "generate"` asks for the whole turn
 * instead, when nobody reads it as it comes. Never throws: failures come
 * back as values with a clear message.
 *
 * @example
 * ```ts
 * import type { LanguageModelV4, LanguageModelV4FunctionTool, LanguageModelV4Prompt } from "@ai-sdk/provider";
 * declare const model: LanguageModelV4;
 * declare const prompt: LanguageModelV4Prompt;
 * declare const tools: LanguageModelV4FunctionTool[];
 * const signal = AbortSignal.timeout(60_000);
 * const outcome = await requestTurn(model, { prompt, tools, signal });
 * if (outcome.status === "failed") console.error(outcome.failure.message);
 * ```
 */
export async function requestTurn(
  model: LanguageModelV4,
  options: RequestTurnOptions,
  {
    maxRetries = 3,
    baseDelayMs = 500,
    maxDelayMs = 30_000,
    sleep = abortableSleep,
    onRetry,
  }: RetryOptions = {},
): Promise<TurnRequestOutcome> {
  for (let attempt = 1; ; attempt += 1) {
    let streamed = false;
    try {
      const onText = options.onText;
      const turn =
        options.mode === "generate" && generatesTurns(model)
          ? await generateTurn(model, options)
          : await streamTurn(model, {
              ...options,
              onText: (delta) => {
                // Chat Completions streams open with an empty delta: nothing has been shown yet.
                if (delta.length > 0) streamed = true;
                onText?.(delta);
              },
            });
      return { status: "ok", turn, attempts: attempt };
    } catch (error) {
      const failure = classifyModelError(
        error instanceof StreamError ? error.error : error,
        options.signal,
      );
      if (!failure.retryable || streamed || attempt > maxRetries)
        return { status: "failed", failure, attempts: attempt };
      const backoff = baseDelayMs * 2 ** (attempt - 1) * (0.8 + Math.random() * 0.4);
      const delay = Math.min(maxDelayMs, failure.retryAfterMs ?? backoff);
      onRetry?.(failure, attempt, delay);
      try {
        await sleep(delay, options.signal);
      } catch {
        return {
          status: "failed",
          failure: classifyModelError(new DOMException("aborted", "AbortError"), options.signal),
          attempts: attempt,
        };
      }
    }
  }
}
