import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, hashCanonical } from "./canonical-json.js";

describe("canonicalJson", () => {
  it("sorts keys at every level", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
  });

  it("gives the same hash whatever the key order, and round-trips", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        const reordered = JSON.parse(JSON.stringify(value), (_key, v) =>
          v && typeof v === "object" && !Array.isArray(v)
            ? Object.fromEntries(Object.entries(v).reverse())
            : v,
        );
        expect(hashCanonical(reordered)).toBe(hashCanonical(value));
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
    );
  });

  it("keeps __proto__ keys as data", () => {
    const value = JSON.parse('{"__proto__":{"x":1},"a":1}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"a":1}');
  });
});
