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

/** What canonicalJson was first defined as: JSON.stringify of a copy with sorted keys. */
function reference(value: unknown): string {
  const sortKeys = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sortKeys);
    if (v === null || typeof v !== "object") return v;
    if (typeof (v as { toJSON?: unknown }).toJSON === "function") {
      return sortKeys((v as { toJSON: () => unknown }).toJSON());
    }
    const sorted: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(v).sort())
      sorted[key] = sortKeys((v as Record<string, unknown>)[key]);
    return sorted;
  };
  return JSON.stringify(sortKeys(value)) ?? "null";
}

describe("canonicalJson, written directly", () => {
  it("gives exactly the text of JSON.stringify over a key-sorted copy (stored hashes depend on it)", () => {
    const anything = fc.anything({
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
      key: fc.oneof(
        fc.string(),
        fc.constantFrom("0", "1", "10", "9", "01", "4294967295", "-1", "__proto__"),
      ),
    });
    fc.assert(
      fc.property(anything, (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
  });

  it("sorts objects of any size the same way (small ones in place, large ones otherwise)", () => {
    const key = fc.oneof(fc.string(), fc.constantFrom("0", "7", "12", "01", "__proto__"));
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.oneof(fc.integer(), fc.dictionary(key, fc.string())), {
          minKeys: 10,
          maxKeys: 80,
        }),
        (value) => {
          expect(canonicalJson(value)).toBe(reference(value));
        },
      ),
      { numRuns: 500 },
    );
    const large = Object.fromEntries(
      Array.from({ length: 20_000 }, (_, i) => [`k${(i * 7919) % 20_000}`, i]),
    );
    expect(canonicalJson(large)).toBe(reference(large));
  });

  it("orders index-like keys numerically before the others, as JSON.stringify enumerates them", () => {
    expect(canonicalJson({ b: 1, 10: 2, 9: 3, a: 4, "01": 5 })).toBe(
      '{"9":3,"10":2,"01":5,"a":4,"b":1}',
    );
  });

  it("drops what JSON drops and refuses what it cannot write", () => {
    expect(canonicalJson({ a: undefined, f: () => 1, s: Symbol("x"), n: Number.NaN })).toBe(
      '{"n":null}',
    );
    expect(canonicalJson([undefined, () => 1])).toBe("[null,null]");
    expect(canonicalJson(undefined)).toBe("null");
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);
  });
});
