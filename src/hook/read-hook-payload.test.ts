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

describe("a payload over the size docket reads whole", () => {
  const size = MAX_HOOK_PAYLOAD_BYTES + 1024;
  const payload = (members: Record<string, unknown>) => Buffer.from(JSON.stringify(members));

  it("is read on, its large members said unread, its small ones kept", async () => {
    const page = '"'.repeat(size);
    const text = payload({
      session_id: "s1",
      hook_event_name: "PostToolUse",
      tool_name: "WebFetch",
      tool_input: { url: "https://evil.example/" },
      tool_response: page,
      tool_use_id: "toolu_1",
    });
    for (const read of [
      readHookPayload(chunksOf(splitEvery(text, 65_536))),
      (() => {
        const stream = new PassThrough();
        const reading = readHookPayload(stream);
        for (const chunk of splitEvery(text, 65_536)) stream.write(chunk);
        stream.end();
        return reading;
      })(),
    ]) {
      const read_ = JSON.parse(await read) as Record<string, unknown>;
      expect(read_).toMatchObject({
        session_id: "s1",
        hook_event_name: "PostToolUse",
        tool_name: "WebFetch",
        tool_input: { url: "https://evil.example/" },
        tool_use_id: "toolu_1",
      });
      expect(read_.tool_response).toMatch(
        /^\[docket: the host's result was part of a payload of \d+ bytes, more than docket reads; its content was not recorded\]$/,
      );
      expect(JSON.stringify(read_)).not.toContain('\\"\\"');
    }
  });

  it("reads every member of a call before it runs, or fails: a huge input is not read", async () => {
    const text = payload({
      session_id: "s1",
      hook_event_name: "PreToolUse",
      tool_name: "Write",
      tool_input: { file_path: "a", content: "x".repeat(size) },
    });
    await expect(readHookPayload(chunksOf([text]))).rejects.toThrow(/no call it can judge/);
  });

  it("after a call ran, a huge input stands as empty: the call is found by its id", async () => {
    const text = payload({
      session_id: "s1",
      hook_event_name: "PostToolUse",
      tool_name: "Write",
      tool_input: { file_path: "a", content: "x".repeat(size) },
      tool_response: "ok",
      tool_use_id: "toolu_1",
    });
    const read = JSON.parse(await readHookPayload(chunksOf([text]))) as Record<string, unknown>;
    expect(read).toEqual({
      session_id: "s1",
      hook_event_name: "PostToolUse",
      tool_name: "Write",
      tool_input: {},
      tool_response: "ok",
      tool_use_id: "toolu_1",
    });
  });

  it("fails on a member named twice, whichever copy is large", async () => {
    const big = "x".repeat(size);
    for (const text of [
      `{"hook_event_name":"${big}","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~"}}`,
      `{"hook_event_name":"PostToolUse","tool_response":"${big}","hook_event_name":"PreToolUse"}`,
      `{"tool_name":"Bash","tool_response":"${big}","tool_name":"Read"}`,
    ]) {
      await expect(readHookPayload(chunksOf([text]))).rejects.toThrow(/no call it can judge/);
    }
  });

  it("fails when a large member is anything but an after-event's result or input", async () => {
    const big = "x".repeat(size);
    for (const members of [
      { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: {}, tool_response: big },
      { hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: {}, extra: big },
      { hook_event_name: big, tool_name: "Bash", tool_input: {} },
    ]) {
      await expect(readHookPayload(chunksOf([payload(members)]))).rejects.toThrow(
        /no call it can judge/,
      );
    }
  });

  it("agrees with JSON.parse on every member it keeps, however the bytes are split", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
        fc.integer({ min: 1, max: 50 }),
        async (members, every) => {
          const text = Buffer.concat([payload(members), Buffer.from(" ".repeat(size))]);
          const read = JSON.parse(await readHookPayload(chunksOf(splitEvery(text, every * 4096))));
          expect(read).toEqual(JSON.parse(JSON.stringify(members)));
        },
      ),
      { numRuns: 25 },
    );
  });
});

function splitEvery(bytes: Buffer, size: number): Buffer[] {
  const parts: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) parts.push(bytes.subarray(at, at + size));
  return parts;
}

describe("a payload over the size that is no JSON object", () => {
  it("fails, whatever breaks it: a bad key escape, a bare value, garbage after it", async () => {
    const big = "x".repeat(MAX_HOOK_PAYLOAD_BYTES);
    for (const text of [
      `{"tool\\q":"${big}"}`,
      `"${big}"`,
      `{"a":"${big}"} trailing`,
      `{"a":"${big}"`,
    ]) {
      await expect(readHookPayload(chunksOf([text]))).rejects.toThrow(/no call it can judge/);
    }
  });
});
