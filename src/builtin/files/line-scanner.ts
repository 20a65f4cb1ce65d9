import type { FileHandle } from "node:fs/promises";

/** One line handed to a `scanLines` visitor. */
export interface ScannedLine {
  /** 1-based line number. */
  number: number;
  /** The line's bytes without its `\n`, cut at `maxLineBytes`; only valid during the call. */
  bytes: Buffer;
  /** Bytes of this line beyond `maxLineBytes` that were not kept. */
  omittedBytes: number;
  /** Byte offset in the file just past this line (and its `\n`). */
  end: number;
}

/** Options for `scanLines`. */
export interface ScanOptions {
  /** Lines before this 1-based number are counted but never copied or visited. */
  firstLine?: number;
  /** Longest line kept; the rest of a longer line is counted in `omittedBytes`. */
  maxLineBytes?: number;
  /** Read size; one buffer of this size is reused for the whole file. */
  chunkBytes?: number;
  /** Checked between chunks. */
  signal?: AbortSignal;
}

/** Where a scan stopped. */
export interface ScanOutcome {
  /** Number of the last line seen (visited or skipped). */
  lastLine: number;
  /** Byte offset just past the last line seen. */
  end: number;
  /** True when the visitor asked to stop before the end of the file. */
  stopped: boolean;
}

const NEWLINE = 0x0a;

/**
 * Walk an open file line by line with two fixed buffers (a read chunk and a line), so memory
 * stays flat however large the file or its lines. The visitor returns `"stop"` to end early,
 * which is what keeps a windowed read of a huge file fast.
 *
 * @example
 * ```ts
 * declare const handle: import("node:fs/promises").FileHandle;
 * await scanLines(handle, (line) => {
 *   console.log(line.number, line.bytes.toString("utf8"));
 *   return line.number >= 10 ? "stop" : undefined;
 * });
 * ```
 */
export async function scanLines(
  handle: FileHandle,
  visit: (line: ScannedLine) => "stop" | undefined,
  { firstLine = 1, maxLineBytes = 64 * 1024, chunkBytes = 64 * 1024, signal }: ScanOptions = {},
): Promise<ScanOutcome> {
  const chunk = Buffer.allocUnsafe(chunkBytes);
  const line = Buffer.allocUnsafe(maxLineBytes);
  let lineLength = 0;
  let omitted = 0;
  let number = 1;
  let position = 0;
  let lineHasBytes = false;

  const emit = (end: number): "stop" | undefined => {
    const verdict =
      number >= firstLine
        ? visit({ number, bytes: line.subarray(0, lineLength), omittedBytes: omitted, end })
        : undefined;
    lineLength = 0;
    omitted = 0;
    lineHasBytes = false;
    return verdict;
  };

  for (;;) {
    signal?.throwIfAborted();
    const { bytesRead } = await handle.read(chunk, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    let start = 0;
    while (start < bytesRead) {
      const newline = chunk.indexOf(NEWLINE, start);
      const stop = newline === -1 || newline >= bytesRead ? bytesRead : newline;
      if (number >= firstLine) {
        const room = maxLineBytes - lineLength;
        const take = Math.min(room, stop - start);
        chunk.copy(line, lineLength, start, start + take);
        lineLength += take;
        omitted += stop - start - take;
      }
      lineHasBytes ||= stop > start;
      if (stop === bytesRead) break;
      const end = position + stop + 1;
      if (emit(end) === "stop") return { lastLine: number, end, stopped: true };
      number += 1;
      start = stop + 1;
    }
    position += bytesRead;
  }
  if (lineHasBytes) {
    if (emit(position) === "stop") return { lastLine: number, end: position, stopped: true };
    return { lastLine: number, end: position, stopped: false };
  }
  return { lastLine: number - 1, end: position, stopped: false };
}

/**
 * Count the lines from byte `start` to the end of the file, reading at most `budgetBytes`.
 * Returns undefined when the budget ran out first (the caller then says "at least").
 *
 * @example
 * ```ts
 * declare const handle: import("node:fs/promises").FileHandle;
 * declare const outcome: ScanOutcome; // scanLines stopped early
 * const rest = await countLinesFrom(handle, outcome.end, 64 * 1024 * 1024);
 * ```
 */
export async function countLinesFrom(
  handle: FileHandle,
  start: number,
  budgetBytes: number,
  signal?: AbortSignal,
): Promise<number | undefined> {
  // 256 KiB stays in CPU cache while indexOf scans it; larger reads measured slower.
  const chunk = Buffer.allocUnsafe(256 * 1024);
  let position = start;
  let lines = 0;
  let lastByte = NEWLINE;
  for (;;) {
    signal?.throwIfAborted();
    if (position - start >= budgetBytes) return undefined;
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
    if (bytesRead === 0) break;
    let index = chunk.indexOf(NEWLINE, 0);
    while (index !== -1 && index < bytesRead) {
      lines += 1;
      index = chunk.indexOf(NEWLINE, index + 1);
    }
    lastByte = chunk[bytesRead - 1] ?? NEWLINE;
    position += bytesRead;
  }
  // A last line without a trailing newline is still a line.
  return lastByte === NEWLINE ? lines : lines + 1;
}

/**
 * Decode a possibly cut UTF-8 line: drop a trailing `\r` and any partial character at the cut.
 *
 * @example
 * ```ts
 * decodeLine(Buffer.from("héllo\r"), 0); // "héllo"
 * ```
 */
export function decodeLine(bytes: Buffer, omittedBytes: number): string {
  let end = bytes.length;
  if (omittedBytes > 0) {
    // Step back to the last character's lead byte; drop it if the cut left it incomplete.
    let lead = end - 1;
    while (lead > 0 && ((bytes[lead] ?? 0) & 0xc0) === 0x80) lead -= 1;
    const byte = bytes[lead] ?? 0;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    if (lead >= 0 && end - lead < needed) end = lead;
  } else if (end > 0 && bytes[end - 1] === 0x0d) {
    end -= 1;
  }
  return bytes.toString("utf8", 0, end);
}
