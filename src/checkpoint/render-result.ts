import type { ToolResult } from "./tool-result.js";
import { envelopeBytes, envelopeOnce, wrapUntrusted } from "./wrap-untrusted.js";

/** Default cap on what a model sees of one result. */
export const DEFAULT_RESULT_BYTES = 32 * 1024;

/**
 * Serialise a tool's output as the text a model reads: strings as they are, everything else as
 * compact JSON. Returns `undefined` when the output cannot be serialised (cycles, BigInt).
 *
 * @example
 * ```ts
 * outputText({ ok: true }); // '{"ok":true}'
 * ```
 */
export function outputText(output: unknown): string | undefined {
  if (output === undefined) return "";
  if (typeof output === "string") return output;
  try {
    return JSON.stringify(output);
  } catch {
    return undefined;
  }
}

/**
 * Keep the head and the tail of a long text within `maxBytes` UTF-8 bytes, with a marker saying
 * how much was cut from the middle. Beginnings and ends carry the most meaning in logs and files.
 *
 * @example
 * ```ts
 * capText("x".repeat(100_000), 1024); // "xxx…\n[… 98,9xx bytes cut …]\n…xxx"
 * ```
 */
export function capText(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return text;
  const bytes = Buffer.from(text);
  const keep = Math.max(0, maxBytes - 64);
  const headBytes = Math.ceil(keep / 2);
  const tailBytes = keep - headBytes;
  // Decoding a slice that splits a character yields U+FFFD at the seam; drop it.
  const head = bytes
    .subarray(0, headBytes)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  const tail = bytes
    .subarray(bytes.length - tailBytes)
    .toString("utf8")
    .replace(/^\uFFFD/, "");
  const cut = bytes.length - Buffer.byteLength(head) - Buffer.byteLength(tail);
  return `${head}\n[… ${cut.toLocaleString("en-US")} bytes cut …]\n${tail}`;
}

/**
 * The text a model sees for a result: the output on success (inside the data envelope when it
 * came from an open-world tool, unless `label: false`), the words of the refusal or failure
 * otherwise, capped.
 *
 * @example
 * ```ts
 * declare const result: import("./tool-result.js").ToolResult;
 * renderResult(result); // '{"order_id":"SU-1","status":"shipped"}' or "Refused: …"
 * ```
 */
export function renderResult(
  result: ToolResult,
  { maxBytes = DEFAULT_RESULT_BYTES, label = true } = {},
): string {
  switch (result.status) {
    case "ok": {
      const text = outputText(result.output) ?? result.message;
      const body = text === "" ? "(the tool returned no output)" : text;
      if (result.source !== undefined && label) {
        // Capped inside the envelope, so both of its ends always reach the model; a result that
        // an upstream docket already wrapped is wrapped once, not twice.
        const once = envelopeOnce(result.source, body);
        const room = Math.max(64, maxBytes - envelopeBytes(once.source));
        const wrapped = wrapUntrusted(once.source, capText(once.content, room));
        return result.note ? `[${result.note}]\n${wrapped}` : wrapped;
      }
      return capText(result.note ? `[${result.note}]\n${body}` : body, maxBytes);
    }
    case "failed": {
      // A failure the tool reported keeps its output under the words, so the model reads both.
      const text = result.output === undefined ? "" : (outputText(result.output) ?? "");
      return capText(text === "" ? result.message : `${result.message}\n${text}`, maxBytes);
    }
    case "refused":
    case "awaiting_approval":
      return capText(result.message, maxBytes);
  }
}
