import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { numberJson, primitiveJson } from "./json-members.js";

describe("numberJson", () => {
  it("writes any number exactly as JSON.stringify does", () => {
    const number = fc.oneof(
      fc.maxSafeInteger(),
      fc.integer({ min: 2 ** 31 - 2, max: 2 ** 31 + 2 }),
      fc.integer({ min: 1_600_000_000_000, max: 2_000_000_000_000 }),
      fc.constantFrom(
        0,
        -0,
        Number.MAX_SAFE_INTEGER,
        Number.MAX_SAFE_INTEGER + 1,
        2 ** 53 + 2,
        1e21,
        10_000_000 * 2 ** 31,
        1_764_600_000_000,
        1_764_600_000_007,
        1_764_600_010_000,
        Number.NaN,
        Number.POSITIVE_INFINITY,
        Number.NEGATIVE_INFINITY,
      ),
      fc.double(),
    );
    fc.assert(
      fc.property(number, (value) => {
        expect(numberJson(value)).toBe(JSON.stringify(value));
        expect(primitiveJson(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 5000 },
    );
  });

  it("pads the low part of a large whole number with zeros", () => {
    expect(numberJson(1_764_600_000_001)).toBe("1764600000001");
    expect(numberJson(2 ** 31)).toBe("2147483648");
    expect(numberJson(20_000_000_000)).toBe("20000000000");
  });
});
