import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, hashCanonical } from "./canonical-json.js";
import { parseJson } from "./parse-json.js";

/** The value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(reversedKeys);
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reversedKeys(item)]),
  );
}

describe("canonicalJson", () => {
  it("sorts keys at every level", () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe('{"a":[2,{"c":4,"d":3}],"b":1}');
  });

  it("gives the same hash whatever the key order, and round-trips", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        const reordered = reversedKeys(value);
        expect(hashCanonical(reordered)).toBe(hashCanonical(value));
        expect(canonicalJson(parseJson(text))).toBe(text);
      }),
    );
  });

  it("keeps __proto__ keys as data", () => {
    const value = parseJson('{"__proto__":{"x":1},"a":1}');
    expect(canonicalJson(value)).toBe('{"__proto__":{"x":1},"a":1}');
  });
});

/**
 * RFC 8785 written the plainest way: JSON.stringify's text for each leaf and key, objects' keys
 * sorted by UTF-16 code units (Array.prototype.sort's default order), toJSON applied first.
 */
function reference(value: unknown): string | undefined {
  if (value !== null && typeof value === "object") {
    if (Array.isArray(value)) {
      return `[${Array.from(value, (item) => reference(item) ?? "null").join(",")}]`;
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return reference(toJSON.call(value));
    const members = Object.keys(value)
      .sort()
      .flatMap((key) => {
        const text = reference((value as Record<string, unknown>)[key]);
        return text === undefined ? [] : [`${JSON.stringify(key)}:${text}`];
      });
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

describe("canonicalJson, written directly", () => {
  it("gives exactly the plain RFC 8785 text on both its paths (stored hashes depend on it)", () => {
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
        expect(canonicalJson(value)).toBe(reference(value) ?? "null");
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

  it("sorts index-like keys with the others by UTF-16 code units (RFC 8785), not numerically", () => {
    expect(canonicalJson({ b: 1, 10: 2, 9: 3, a: 4, "01": 5 })).toBe(
      '{"01":5,"10":2,"9":3,"a":4,"b":1}',
    );
    expect(canonicalJson({ "2": 1, "1a": 2, "-1": 3, " ": 4 })).toBe('{" ":4,"-1":3,"1a":2,"2":1}');
    // Already in order as the object lists them: the fast path keeps it as it is.
    expect(canonicalJson({ "1": [{ "1": 1, a: 2 }], a: 3 })).toBe('{"1":[{"1":1,"a":2}],"a":3}');
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
