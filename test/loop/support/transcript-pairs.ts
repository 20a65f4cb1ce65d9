import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { expect } from "vitest";

/** One tool result as a provider receives it. */
export interface PromptResult {
  readonly callId: string;
  readonly name: string;
  readonly isError: boolean;
  readonly text: string;
}

/**
 * The tool results in a provider-neutral prompt, in order, flattened.
 *
 * @example
 * ```ts
 * promptResults(model.requests[1]!.prompt).map((r) => r.callId);
 * ```
 */
export function promptResults(prompt: LanguageModelV4Prompt): PromptResult[] {
  const results: PromptResult[] = [];
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      results.push({
        callId: part.toolCallId,
        name: part.toolName,
        isError: output.type === "error-text" || output.type === "error-json",
        text: output.type === "text" || output.type === "error-text" ? output.value : "",
      });
    }
  }
  return results;
}

/**
 * Assert docket's transcript rule on a prompt: every assistant message that requests tools is
 * followed at once by one tool message answering each request exactly once, with its id and
 * name, in the order asked; and no result answers anything else.
 *
 * @example
 * ```ts
 * for (const request of model.requests) expectEveryCallAnswered(request.prompt);
 * ```
 */
export function expectEveryCallAnswered(prompt: LanguageModelV4Prompt): void {
  for (const [index, message] of prompt.entries()) {
    if (message.role === "tool") {
      const previous = prompt[index - 1];
      expect(previous?.role, `tool message ${index} follows an assistant message`).toBe(
        "assistant",
      );
      continue;
    }
    if (message.role !== "assistant") continue;
    const asked = message.content.flatMap((part) =>
      part.type === "tool-call" ? [[part.toolCallId, part.toolName]] : [],
    );
    if (asked.length === 0) continue;
    const next = prompt[index + 1];
    expect(next?.role, `the requests of message ${index} are answered next`).toBe("tool");
    const answered =
      next?.role === "tool"
        ? next.content.flatMap((part) =>
            part.type === "tool-result" ? [[part.toolCallId, part.toolName]] : [],
          )
        : [];
    expect(answered).toEqual(asked);
  }
}
