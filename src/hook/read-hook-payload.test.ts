import { PassThrough, Readable } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_HOOK_PAYLOAD_BYTES, readHookPayload } from "./read-hook-payload.js";

async function* chunksOf(parts: readonly (string | Buffer)[]): AsyncGenerator<string | Buffer> {
  for (const part of parts) yield part;
}

describe("readHookPayload", () => {
  it("reads the same text from a stream and from any source of chunks, split anywhere", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.nat(20),
        async (text, cut) => {
          const bytes = Buffer.from(text);
          // A cut may split a character's bytes: the text is decoded whole, not chunk by chunk.
          const at = Math.min(cut, bytes.length);
          const parts = [bytes.subarray(0, at), bytes.subarray(at)];
          expect(await readHookPayload(Readable.from(parts))).toBe(text);
          expect(await readHookPayload(chunksOf(parts))).toBe(text);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("refuses a payload over the limit from either, and stops reading the stream", async () => {
    const big = Buffer.alloc(MAX_HOOK_PAYLOAD_BYTES / 2 + 1, "x");
    const stream = new PassThrough();
    const read = readHookPayload(stream);
    stream.write(big);
    stream.write(big);
    await expect(read).rejects.toThrow(/over 4194304 bytes/);
    expect(stream.destroyed).toBe(true);
    await expect(readHookPayload(chunksOf([big, big]))).rejects.toThrow(/over 4194304 bytes/);
  });

  it("answers an already ended stream with its empty text, and passes a stream's error on", async () => {
    const ended = Readable.from([]);
    ended.resume();
    await new Promise((resolve) => ended.on("end", resolve));
    expect(await readHookPayload(ended)).toBe("");
    const failing = new PassThrough();
    const read = readHookPayload(failing);
    failing.destroy(new Error("the pipe broke"));
    await expect(read).rejects.toThrow("the pipe broke");
  });

  it("never waits on a stream that cannot end: closed early, destroyed, failed or paused", async () => {
    const cut = new PassThrough();
    const reading = readHookPayload(cut);
    cut.write('{"hook_event_name":');
    cut.destroy();
    await expect(reading).rejects.toThrow("closed before the payload's end");

    const destroyed = new PassThrough();
    destroyed.destroy();
    await expect(readHookPayload(destroyed)).rejects.toThrow("closed before the payload's end");

    const failed = new PassThrough();
    failed.on("error", () => {});
    failed.destroy(new Error("EIO"));
    await expect(readHookPayload(failed)).rejects.toThrow("EIO");

    const paused = new PassThrough();
    paused.pause();
    paused.end('{"a":1}');
    expect(await readHookPayload(paused)).toBe('{"a":1}');
  });
});
