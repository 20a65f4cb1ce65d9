import { describe, expect, it } from "vitest";
import { decodeAnsiC } from "./ansi-c-string.js";
import { expandBraces } from "./brace-expansion.js";

const values = (value: string, mask = "1".repeat(value.length)) =>
  expandBraces({ value, mask }).words.map((w) => w.value);

describe("expandBraces", () => {
  it.each([
    ["a{b,c}d", ["abd", "acd"]],
    ["{a,b}{1,2}", ["a1", "a2", "b1", "b2"]],
    ["r{m,}", ["rm", "r"]],
    ["{rm,-rf,/}", ["rm", "-rf", "/"]],
    ["a{b,{c,d}}", ["ab", "ac", "ad"]],
    ["{1..3}", ["1", "2", "3"]],
    ["{3..1}", ["3", "2", "1"]],
    ["{01..03}", ["01", "02", "03"]],
    ["{a..c}", ["a", "b", "c"]],
    ["{0..10..5}", ["0", "5", "10"]],
    ["{}", ["{}"]],
    ["{a}", ["{a}"]],
    ["{a,b", ["{a,b"]],
    ["x}", ["x}"]],
  ])("%s → %j", (input, expected) => {
    expect(values(input)).toEqual(expected);
  });

  it("leaves quoted braces alone", () => {
    expect(values("{a,b}", "01111")).toEqual(["{a,b}"]);
    expect(values("{a,b}", "11011")).toEqual(["{a,b}"]);
  });

  it("stops at the limit and says so", () => {
    const result = expandBraces({ value: "{1..1000}", mask: "1".repeat(9) }, 64);
    expect(result.words.map((w) => w.value)).toEqual(["{1..1000}"]);
    const product = expandBraces(
      { value: "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}", mask: "1".repeat(35) },
      64,
    );
    expect(product.truncated).toBe(true);
    expect(product.words.length).toBeLessThanOrEqual(64);
  });
});

describe("decodeAnsiC", () => {
  it.each([
    ["\\x72m", "rm"],
    ["\\162m", "rm"],
    ["\\u0072m", "rm"],
    ["\\U00000072m", "rm"],
    ["a\\tb\\n", "a\tb\n"],
    ["\\'q\\'", "'q'"],
    ["\\cA", "\x01"],
    ["\\q", "\\q"],
    ["\\U7fffffff", "\ufffd"],
    ["trailing\\", "trailing\\"],
  ])("%s → %j", (input, expected) => {
    expect(decodeAnsiC(input)).toBe(expected);
  });
});
