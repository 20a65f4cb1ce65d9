import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonDepth, stringifyDeep } from "./deep-json.js";

describe("jsonDepth and stringifyDeep", () => {
  it("write what JSON.stringify writes, for any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(stringifyDeep(value)).toBe(JSON.stringify(value));
      }),
    );
  });

  it("count nesting without recursion, 10,000 deep", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i += 1) deep = i % 2 === 0 ? { a: deep } : [deep];
    expect(jsonDepth(deep, 64)).toBe(65);
    expect(jsonDepth(deep, 20_000)).toBe(10_000);
    const text = stringifyDeep(deep);
    expect(text.length).toBeGreaterThan(40_000);
    expect(jsonDepth(JSON.parse(text), 20_000)).toBe(10_000);
    expect(jsonDepth({ a: [1] }, 64)).toBe(2);
    expect(jsonDepth("x", 64)).toBe(0);
  });
});
