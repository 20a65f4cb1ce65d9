import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createOutputCapture } from "./output-capture.js";

describe("createOutputCapture", () => {
  it("retains at most its cap and none of the chunks it was given, which may be reused", () => {
    const capture = createOutputCapture(64 * 1024);
    // One buffer refilled for every push, as the run_command reader does.
    const reused = Buffer.alloc(64 * 1024);
    for (let i = 0; i < 1600; i += 1) {
      reused.fill(i === 0 ? "h" : i === 1599 ? "t" : "x");
      capture.push(reused);
      expect(capture.retainedBytes).toBeLessThanOrEqual(64 * 1024);
    }
    reused.fill("!");
    const { text, totalBytes, omittedBytes } = capture.finish();
    expect(totalBytes).toBe(1600 * 64 * 1024);
    expect(omittedBytes).toBe(totalBytes - 64 * 1024);
    expect(text).toBe(
      `${"h".repeat(32 * 1024)}\n[… ${omittedBytes} bytes omitted …]\n${"t".repeat(32 * 1024)}`,
    );
  });

  it("keeps everything under the cap", () => {
    const capture = createOutputCapture(100);
    capture.push(Buffer.from("hello "));
    capture.push(Buffer.from("world"));
    expect(capture.finish()).toEqual({ text: "hello world", totalBytes: 11, omittedBytes: 0 });
  });

  it("keeps head and tail and counts what it dropped", () => {
    const capture = createOutputCapture(10);
    capture.push(Buffer.from("0123456789"));
    capture.push(Buffer.from("abcdefghij"));
    capture.push(Buffer.from("KLMNO"));
    expect(capture.finish()).toEqual({
      text: "01234\n[… 15 bytes omitted …]\nKLMNO",
      totalBytes: 25,
      omittedBytes: 15,
    });
  });

  it("never splits a character at the omission marker", () => {
    // 18 bytes, cap 6: the head ends and the tail starts in the middle of a character.
    const capture = createOutputCapture(6);
    capture.push(Buffer.from("ééééééééé"));
    const { text, omittedBytes } = capture.finish();
    expect(text).toBe("é\n[… 14 bytes omitted …]\né");
    expect(omittedBytes).toBe(14);
  });

  it("is exact for any chunking: head is a prefix, tail a suffix, the rest counted", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom("a", "b", "c", "\n"), maxLength: 40 }), {
          maxLength: 30,
        }),
        fc.integer({ min: 2, max: 64 }),
        (chunks, cap) => {
          const capture = createOutputCapture(cap);
          for (const chunk of chunks) capture.push(Buffer.from(chunk));
          const all = chunks.join("");
          const { text, totalBytes, omittedBytes } = capture.finish();
          expect(totalBytes).toBe(all.length);
          if (all.length <= cap) {
            expect(text).toBe(all);
            expect(omittedBytes).toBe(0);
          } else {
            const head = Math.floor(cap / 2);
            const tail = cap - head;
            expect(omittedBytes).toBe(all.length - cap);
            expect(text).toBe(
              `${all.slice(0, head)}\n[… ${all.length - cap} bytes omitted …]\n${all.slice(all.length - tail)}`,
            );
          }
        },
      ),
    );
  });
});
