/** What a capture holds once the stream has ended. */
export interface CapturedOutput {
  /** Head and tail joined by an omission marker when bytes were dropped. */
  text: string;
  /** All bytes the stream produced. */
  totalBytes: number;
  /** Bytes dropped between head and tail. */
  omittedBytes: number;
}

/** A bounded sink for one output stream. */
export interface OutputCapture {
  /** Take a chunk; its bytes are copied, so the chunk itself can be collected at once. */
  push(chunk: Uint8Array): void;
  /** Bytes seen so far. */
  readonly totalBytes: number;
  /** Bytes held in memory now: never more than the cap, however much was pushed. */
  readonly retainedBytes: number;
  /** Decode what was kept. */
  finish(): CapturedOutput;
}

/**
 * Capture a stream into a fixed memory budget: the first half of `maxBytes` is kept as the
 * head, the last half in a ring buffer as the tail, and everything in between is only counted.
 * Memory never exceeds `maxBytes` however much the stream produces (a command printing 1 GB
 * costs the same as one printing 1 MB), and no chunk is retained.
 *
 * @example
 * ```ts
 * const capture = createOutputCapture(1024);
 * declare const child: import("node:child_process").ChildProcessByStdio<null, import("node:stream").Readable, null>;
 * child.stdout.on("data", (chunk: Buffer) => capture.push(chunk));
 * capture.finish().text; // "first 512 bytes…\n[… 99000 bytes omitted …]\n…last 512 bytes"
 * ```
 */
export function createOutputCapture(maxBytes: number): OutputCapture {
  const headCap = Math.floor(maxBytes / 2);
  const tailCap = maxBytes - headCap;
  const headParts: Buffer[] = [];
  let headLength = 0;
  let ring: Buffer | undefined;
  let ringStart = 0;
  let ringLength = 0;
  let total = 0;

  const pushTail = (bytes: Uint8Array): void => {
    if (tailCap === 0) return;
    ring ??= Buffer.allocUnsafe(tailCap);
    if (bytes.length >= tailCap) {
      ring.set(bytes.subarray(bytes.length - tailCap));
      ringStart = 0;
      ringLength = tailCap;
      return;
    }
    const writeAt = (ringStart + ringLength) % tailCap;
    const first = Math.min(bytes.length, tailCap - writeAt);
    ring.set(bytes.subarray(0, first), writeAt);
    ring.set(bytes.subarray(first), 0);
    ringLength += bytes.length;
    if (ringLength > tailCap) {
      ringStart = (ringStart + ringLength - tailCap) % tailCap;
      ringLength = tailCap;
    }
  };

  return {
    push(chunk) {
      total += chunk.length;
      let rest = chunk;
      if (headLength < headCap) {
        const take = Math.min(headCap - headLength, rest.length);
        headParts.push(Buffer.from(rest.subarray(0, take)));
        headLength += take;
        rest = rest.subarray(take);
      }
      if (rest.length > 0) pushTail(rest);
    },
    get totalBytes() {
      return total;
    },
    get retainedBytes() {
      return headLength + (ring?.length ?? 0);
    },
    finish() {
      const head = Buffer.concat(headParts, headLength);
      const tail =
        ring === undefined
          ? Buffer.alloc(0)
          : Buffer.concat([
              ring.subarray(ringStart, Math.min(ringStart + ringLength, tailCap)),
              ring.subarray(0, Math.max(0, ringStart + ringLength - tailCap)),
            ]);
      const omittedBytes = total - headLength - tail.length;
      if (omittedBytes === 0) {
        return {
          text: Buffer.concat([head, tail]).toString("utf8"),
          totalBytes: total,
          omittedBytes,
        };
      }
      // Cut both sides at character boundaries so the marker never splits a character.
      const headEnd = completeCharsEnd(head);
      const tailStart = firstCharStart(tail);
      const dropped = omittedBytes + (head.length - headEnd) + tailStart;
      const text = `${head.toString("utf8", 0, headEnd)}\n[… ${dropped} bytes omitted …]\n${tail.toString("utf8", tailStart)}`;
      return { text, totalBytes: total, omittedBytes: dropped };
    },
  };
}

/** Length of the longest prefix that ends on a complete UTF-8 character. */
function completeCharsEnd(bytes: Buffer): number {
  let lead = bytes.length - 1;
  while (lead > 0 && ((bytes[lead] ?? 0) & 0xc0) === 0x80 && bytes.length - lead < 4) lead -= 1;
  const byte = bytes[lead] ?? 0;
  const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
  return lead >= 0 && bytes.length - lead < needed ? lead : bytes.length;
}

/** Index of the first byte that starts a UTF-8 character (skipping orphaned continuations). */
function firstCharStart(bytes: Buffer): number {
  let start = 0;
  while (start < bytes.length && start < 3 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start += 1;
  return start;
}
