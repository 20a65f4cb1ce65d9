import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { looksBinary } from "./binary-content.js";

describe("looksBinary", () => {
  it("calls text text", () => {
    expect(looksBinary(Buffer.from("hello\nwörld ✓ 🎉\n"))).toBe(false);
    expect(looksBinary(Buffer.alloc(0))).toBe(false);
    expect(looksBinary(Buffer.from("a literal \uFFFD replacement character"))).toBe(false);
  });

  it("calls a NUL byte binary", () => {
    expect(looksBinary(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]))).toBe(
      true,
    );
    expect(looksBinary(Buffer.from("text\0text"))).toBe(true);
  });

  it("calls mostly invalid UTF-8 binary but tolerates a stray byte", () => {
    expect(looksBinary(Buffer.from(Array.from({ length: 200 }, (_, i) => 0x80 + (i % 64))))).toBe(
      true,
    );
    expect(looksBinary(Buffer.concat([Buffer.from("x".repeat(200)), Buffer.from([0xff])]))).toBe(
      false,
    );
  });

  it("does not hold a character cut at the end of the sample against it", () => {
    const cut = Buffer.from("é".repeat(5)).subarray(0, 9);
    expect(looksBinary(cut)).toBe(false);
  });

  it("never calls valid UTF-8 without NUL binary", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), (text) => {
        expect(looksBinary(Buffer.from(text.replaceAll("\0", "")))).toBe(false);
      }),
    );
  });
});
