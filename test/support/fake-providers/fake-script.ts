import type { IncomingHttpHeaders } from "node:http";

/** One tool call a fake provider should answer with. */
export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  /** The argument text exactly as the model "produced" it; it may be malformed JSON. */
  readonly arguments: string;
}

/** A successful scripted reply: text, tool calls, or both. */
export interface ScriptedReply {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number };
  /**
   * Streaming only: after the content, send this provider-shaped error payload as a stream event
   * instead of finishing, as providers do when they fail part-way through a response.
   */
  readonly streamError?: unknown;
}

/** A scripted HTTP failure: status, the provider's JSON error body, and headers such as `retry-after`. */
export interface ScriptedError {
  readonly error: {
    readonly status: number;
    readonly body: unknown;
    readonly headers?: Readonly<Record<string, string>>;
  };
}

/** One scripted response; a fake consumes one per request that passes auth and validation. */
export type ScriptItem = ScriptedReply | ScriptedError;

/** What a fake provider saw, for assertions. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it was not JSON. */
  readonly body: unknown;
}

/**
 * Narrow a script item to a scripted error.
 *
 * @example
 * ```ts
 * if (isScriptedError(item)) sendJson(res, item.error.status, item.error.body);
 * ```
 */
export function isScriptedError(item: ScriptItem): item is ScriptedError {
  return "error" in item;
}

/**
 * Hand out script items in order, one per call.
 *
 * @example
 * ```ts
 * const next = scriptCursor([{ text: "hi" }]);
 * next(); // { text: "hi" }
 * next(); // undefined: the script is used up
 * ```
 */
export function scriptCursor(script: readonly ScriptItem[]): () => ScriptItem | undefined {
  let position = 0;
  return () => {
    const item = script[position];
    if (item !== undefined) position += 1;
    return item;
  };
}
