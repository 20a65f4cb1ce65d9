import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fastDigest } from "./fast-digest.js";

/** FNV-1a, 64 bits, with BigInt: the reference the fast lanes must agree with. */
function reference(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= BigInt(text.charCodeAt(i));
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}

describe("fastDigest", () => {
  it("is FNV-1a's 64 bits over the text's code units", () => {
    expect(fastDigest("")).toBe("cbf29ce484222325");
    expect(fastDigest("a")).toBe("af63dc4c8601ec8c");
    expect(fastDigest("foobar")).toBe("85944171f73967e8");
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(fastDigest(text)).toBe(reference(text));
      }),
    );
  });

  it("tells apart texts that differ by one character", () => {
    expect(fastDigest("policy:\n  rules: []\n")).not.toBe(fastDigest("policy:\n  rules: [] \n"));
  });
});
