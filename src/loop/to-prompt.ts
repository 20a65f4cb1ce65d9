import type { LanguageModelV4Message, LanguageModelV4Prompt } from "@ai-sdk/provider";
import { parseJson } from "../shared/parse-json.js";
import type { TranscriptMessage } from "./transcript-message.js";

/**
 * The arguments object sent back to a provider for an earlier call. Providers require an
 * object here; argument text the model garbled is replaced by `{}` (the garbled text is kept in
 * docket's transcript and audit trail, and the call's result already told the model why).
 */
function replayInput(text: string): unknown {
  try {
    const value = parseJson(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * Turn a transcript into the AI SDK's provider-neutral prompt. Every tool request is followed by
 * exactly one result with its id, in order; refused and failed results are marked as errors.
 *
 * @example
 * ```ts
 * const prompt = toPrompt([{ role: "user", text: "Where is my order?" }]);
 * ```
 */
export function toPrompt(messages: readonly TranscriptMessage[]): LanguageModelV4Prompt {
  return messages.filter(isSent).map(providerMessage);
}

/**
 * Whether a message goes into the prompt. An assistant turn with neither words nor calls has
 * no content providers accept; dropping it lets the provider merge the user turns around it.
 *
 * @example
 * ```ts
 * isSent({ role: "assistant", text: "", toolCalls: [] }); // false
 * ```
 */
export function isSent(message: TranscriptMessage): boolean {
  return message.role !== "assistant" || message.text !== "" || message.toolCalls.length > 0;
}

// The transcript only grows: the same message objects come back every turn. Converting each
// once keeps a long run linear (an assistant message's arguments are parsed once, not per turn).
const converted = new WeakMap<TranscriptMessage, LanguageModelV4Message>();

/**
 * One transcript message in the AI SDK's prompt form, converted once per message object.
 *
 * @example
 * ```ts
 * providerMessage({ role: "user", text: "hi" }); // { role: "user", content: [{ type: "text", text: "hi" }] }
 * ```
 */
export function providerMessage(message: TranscriptMessage): LanguageModelV4Message {
  let provider = converted.get(message);
  if (!provider) {
    provider = toProviderMessage(message);
    converted.set(message, provider);
  }
  return provider;
}

function toProviderMessage(message: TranscriptMessage): LanguageModelV4Message {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.text };
    case "user":
      return { role: "user", content: [{ type: "text", text: message.text }] };
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...(message.text ? [{ type: "text" as const, text: message.text }] : []),
          ...message.toolCalls.map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: replayInput(call.arguments),
          })),
        ],
      };
    case "tool":
      return {
        role: "tool",
        content: message.results.map((result) => ({
          type: "tool-result" as const,
          toolCallId: result.callId,
          toolName: result.name,
          output: result.isError
            ? { type: "error-text" as const, value: result.text }
            : { type: "text" as const, value: result.text },
        })),
      };
  }
}
