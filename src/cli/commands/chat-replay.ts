import { showControlCharacters } from "../../approval/format-arguments.js";
import type { TranscriptMessage, TranscriptToolResult } from "../../loop/transcript-message.js";

/** Options for {@link replayLines}. */
export interface ReplayOptions {
  /** Messages shown at most (the latest); the rest are counted. Default 40. */
  readonly maxMessages?: number;
  /** Characters of one turn's text shown at most. Default 2,000. */
  readonly maxText?: number;
  /** Characters of a call's arguments shown at most. Default 60. */
  readonly maxArguments?: number;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Text from the model or a person, fit for the terminal: control characters as codes. */
function shown(text: string, max: number, indent: string): string {
  return showControlCharacters(cut(text.replace(/\r\n/g, "\n").trimEnd(), max)).replace(
    /\n/g,
    `\n${indent}`,
  );
}

function outcome(result: TranscriptToolResult | undefined): string {
  if (result === undefined) return "no result yet";
  if (result.status === "ok") return "ok";
  return result.reason ? `${result.status} (${result.reason})` : result.status;
}

/**
 * A saved conversation as `docket chat` shows it on resume: the user's and the assistant's
 * turns, and each tool call in one line (its name, the start of its arguments, how it ended).
 * The system prompt is left out (`docket sessions show` prints it); long sessions show their
 * latest messages and say how many came before.
 *
 * @example
 * ```ts
 * declare const store: import("../../store/store.js").Store;
 * const sessionId = "s-1";
 * import { sessionTranscript } from "../../loop/session-transcript.js";
 * replayLines(await sessionTranscript(store, sessionId).load());
 * // ["you> Where is SU-1?", "assistant: Let me look.", "  · get_order {\"order_id\":\"SU-1\"} → ok"]
 * ```
 */
export function replayLines(
  messages: readonly TranscriptMessage[],
  { maxMessages = 40, maxText = 2_000, maxArguments = 60 }: ReplayOptions = {},
): string[] {
  const results = new Map<string, TranscriptToolResult>();
  for (const message of messages) {
    if (message.role === "tool")
      for (const result of message.results) results.set(result.callId, result);
  }
  const conversation = messages.filter(
    (message) => message.role === "user" || message.role === "assistant",
  );
  const shownMessages = conversation.slice(-maxMessages);
  const lines: string[] = [];
  const earlier = conversation.length - shownMessages.length;
  if (earlier > 0) lines.push(`(${earlier} earlier messages not shown)`);
  for (const message of shownMessages) {
    if (message.role === "user") {
      lines.push(`you: ${shown(message.text, maxText, "     ")}`);
      continue;
    }
    if (message.role !== "assistant") continue;
    if (message.text.trim() !== "") lines.push(`assistant: ${shown(message.text, maxText, "  ")}`);
    for (const call of message.toolCalls) {
      const args = showControlCharacters(cut(call.arguments.replace(/\s+/g, " "), maxArguments));
      lines.push(
        `  · ${showControlCharacters(`${call.name} ${args} → ${outcome(results.get(call.id))}`)}`,
      );
    }
  }
  return lines;
}
