import type { TranscriptMessage } from "./transcript-message.js";

// Messages are immutable and come back every turn: measure each once.
const measured = new WeakMap<TranscriptMessage, number>();

/**
 * What a message counts against the context budget: the bytes of its words, argument texts,
 * tool names and result texts.
 *
 * @example
 * ```ts
 * messageBytes({ role: "user", text: "héllo" }); // 6
 * ```
 */
export function messageBytes(message: TranscriptMessage): number {
  let bytes = measured.get(message);
  if (bytes === undefined) {
    bytes = measure(message);
    measured.set(message, bytes);
  }
  return bytes;
}

function measure(message: TranscriptMessage): number {
  switch (message.role) {
    case "system":
    case "user":
      return Buffer.byteLength(message.text);
    case "assistant":
      return (
        Buffer.byteLength(message.text) +
        message.toolCalls.reduce((n, c) => n + Buffer.byteLength(c.arguments) + c.name.length, 0)
      );
    case "tool":
      return message.results.reduce((n, r) => n + Buffer.byteLength(r.text), 0);
  }
}

/**
 * The marker that replaces an elided tool output.
 *
 * @example
 * ```ts
 * elisionMarker(12_000); // "[output elided to fit the context budget: 12,000 bytes]"
 * ```
 */
export function elisionMarker(bytes: number): string {
  return `[output elided to fit the context budget: ${bytes.toLocaleString("en-US")} bytes]`;
}

/**
 * Fit a transcript into a byte budget by eliding tool outputs, oldest first. Nothing else is
 * touched: every request keeps its result (providers require the pairs), user and assistant
 * words stay, and the latest tool results are never elided, since the model is about to read
 * them. If the transcript still does not fit, it is returned as it is and the provider's
 * context-length error is reported in words.
 *
 * @example
 * ```ts
 * import { toPrompt } from "./to-prompt.js";
 * declare const transcript: readonly import("./transcript-message.js").TranscriptMessage[];
 * const prompt = toPrompt(fitContext(transcript, 400_000));
 * ```
 */
export function fitContext(
  messages: readonly TranscriptMessage[],
  budgetBytes: number,
): TranscriptMessage[] {
  let total = messages.reduce((n, m) => n + messageBytes(m), 0);
  const fitted = [...messages];
  if (total <= budgetBytes) return fitted;
  let latestTool = -1;
  for (let i = fitted.length - 1; i >= 0; i -= 1) {
    if (fitted[i]?.role === "tool") {
      latestTool = i;
      break;
    }
  }
  for (let i = 0; i < latestTool && total > budgetBytes; i += 1) {
    const message = fitted[i];
    if (message?.role !== "tool") continue;
    fitted[i] = {
      role: "tool",
      results: message.results.map((result) => {
        const size = Buffer.byteLength(result.text);
        const marker = elisionMarker(size);
        if (total <= budgetBytes || size <= marker.length) return result;
        total -= size - Buffer.byteLength(marker);
        return { ...result, text: marker };
      }),
    };
  }
  return fitted;
}
