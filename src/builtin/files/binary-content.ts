import type { FileHandle } from "node:fs/promises";

/** How much of a file's start is inspected to decide whether it is text. */
export const SNIFF_BYTES = 8192;

/** Share of undecodable characters above which a sample counts as binary. */
const MAX_INVALID_SHARE = 0.1;

/**
 * Whether a sample of a file's first bytes looks binary: it holds a NUL byte, or more than 10%
 * of it is not valid UTF-8. A multi-byte character cut at the end of the sample is not held
 * against it.
 *
 * @example
 * ```ts
 * looksBinary(Buffer.from("hello\n")); // false
 * looksBinary(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00])); // true
 * ```
 */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.length === 0) return false;
  if (sample.includes(0)) return true;
  // stream: true keeps a trailing partial character pending instead of replacing it.
  const text = new TextDecoder("utf-8", { fatal: false }).decode(sample, { stream: true });
  let invalid = 0;
  for (const char of text) if (char === "\uFFFD") invalid += 1;
  const genuine = countEncodedReplacementChars(sample);
  return (invalid - genuine) / Math.max(text.length, 1) > MAX_INVALID_SHARE;
}

/**
 * Read the first `SNIFF_BYTES` of an open file and say whether it looks binary.
 *
 * @example
 * ```ts
 * import { BuiltinRefusal } from "../builtin-refusal.js";
 * declare const handle: import("node:fs/promises").FileHandle;
 * if (await handleLooksBinary(handle)) throw new BuiltinRefusal("binary_file", "…");
 * ```
 */
export async function handleLooksBinary(handle: FileHandle): Promise<boolean> {
  const buffer = Buffer.allocUnsafe(SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
  return looksBinary(buffer.subarray(0, bytesRead));
}

/** U+FFFD written literally in the file (EF BF BD) is valid text, not a decoding failure. */
function countEncodedReplacementChars(sample: Uint8Array): number {
  let count = 0;
  for (let i = 0; i + 2 < sample.length; i += 1) {
    if (sample[i] === 0xef && sample[i + 1] === 0xbf && sample[i + 2] === 0xbd) count += 1;
  }
  return count;
}
