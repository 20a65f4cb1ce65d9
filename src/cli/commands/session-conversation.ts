import { showControlCharacters } from "../../approval/format-arguments.js";
import type { TranscriptMessage } from "../../store/transcript-message.js";

const MAX_RESULT = 300;

/** A text for the terminal: control characters shown as codes, later lines indented. */
function block(text: string, indent: string): string {
  return showControlCharacters(text.replace(/\r\n/g, "\n").trimEnd()).replace(/\n/g, `\n${indent}`);
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}… (${text.length} characters)` : text;
}

interface StoredCall {
  readonly id?: unknown;
  readonly name?: unknown;
  readonly arguments?: unknown;
}
interface StoredResult {
  readonly callId?: unknown;
  readonly name?: unknown;
  readonly status?: unknown;
  readonly reason?: unknown;
  readonly text?: unknown;
}

/**
 * A session's transcript as a conversation for `docket sessions show`: who said what, each tool
 * call under the assistant turn that made it (`→`), and its result (`←`, the first 300
 * characters of what the model read). Text from the model and the tools is shown with control
 * characters as codes, and every continuation line is indented, so nothing in it can pass for
 * a line of docket's own.
 *
 * @example
 * ```ts
 * declare const messages: import("../../store/transcript-message.js").TranscriptMessage[];
 * conversationLines(messages);
 * // ["user: Where is my order?", "assistant: Let me look.", "  → get_order {…}  [call_1]", "  ← ok: {…}"]
 * ```
 */
export function conversationLines(messages: readonly TranscriptMessage[]): string[] {
  const lines: string[] = [];
  for (const message of messages) {
    const content = message.content as Record<string, unknown> | string | null;
    if (typeof content === "string" || content === null || typeof content !== "object") {
      lines.push(`${message.role}: ${block(String(content ?? ""), "  ")}`);
      continue;
    }
    switch (message.role) {
      case "system":
      case "user":
        lines.push(`${message.role}: ${block(String(content.text ?? ""), "  ")}`);
        break;
      case "assistant": {
        const text = String(content.text ?? "");
        if (text !== "") lines.push(`assistant: ${block(text, "  ")}`);
        const calls = Array.isArray(content.toolCalls) ? (content.toolCalls as StoredCall[]) : [];
        if (text === "" && calls.length > 0) lines.push("assistant:");
        for (const call of calls) {
          lines.push(
            `  → ${block(`${String(call.name)} ${cut(String(call.arguments ?? ""), MAX_RESULT)}`, "    ")}  [${block(String(call.id), "")}]`,
          );
        }
        break;
      }
      case "tool": {
        const results = Array.isArray(content.results) ? (content.results as StoredResult[]) : [];
        for (const result of results) {
          const status = `${String(result.status)}${result.reason ? ` (${String(result.reason)})` : ""}`;
          lines.push(
            `  ← ${block(`${String(result.name)} ${status}: ${cut(String(result.text ?? ""), MAX_RESULT)}`, "    ")}  [${block(String(result.callId), "")}]`,
          );
        }
        break;
      }
    }
  }
  return lines;
}
