import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasKeyWithBackslash, parseJson, parseJsonExactly, stringEnd } from "./parse-json.js";

/** Build an object holding `key` after `first`, as JSON.parse does, so V8 remembers the shape. */
function teach(first: string, key: string): void {
  JSON.parse(`{${JSON.stringify(first)}:[],${JSON.stringify(key)}:0}`);
}

describe("parseJson", () => {
  it("looks at own keys only, so a polluted Object.prototype cannot stall it", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.pollutedByTest = {};
    try {
      expect(parseJson('{"a":"x\\ny"}')).toEqual({ a: "x\ny" });
      expect(hasKeyWithBackslash({ a: { b: 1 } })).toBe(false);
    } finally {
      delete proto.pollutedByTest;
    }
  });

  it("the exact reader throws on text that is not JSON instead of running on", () => {
    expect(() => parseJsonExactly('{"a":"abc')).toThrow(SyntaxError);
    expect(() => parseJsonExactly('{"a":[1')).toThrow(SyntaxError);
    expect(() => parseJsonExactly("]")).toThrow(SyntaxError);
    expect(() => stringEnd('"a\\', 0)).toThrow(SyntaxError);
  });

  it("reads an escaped key as written after the process has seen the key V8 confuses it with", () => {
    // nodejs/node#63785: once an object held the key `\`, V8 can read the key `"` (written \")
    // as `\`. parseJson must not, whether or not this V8 has the bug.
    const cases: [string, string][] = [
      ['{"h":[],"\\\\":0}', '{"h":1,"\\"":2}'],
      ['{"q":[],"a\\\\":0}', '{"q":1,"a\\n":2}'],
      ['{"r":[],"aa\\\\":0}', '{"r":1,"aa\\u0001":2}'],
    ];
    for (const [poison, text] of cases) {
      JSON.parse(poison);
      const expected = Object.keys(parseJsonExactly(text) as object);
      expect(Object.keys(parseJson(text) as object)).toEqual(expected);
      expect(expected[1]).not.toContain("\\");
    }
  });

  it("returns what JSON.parse returns for text with no escapes, and throws its SyntaxError", () => {
    const text = '{"a":[1,2.5e3,-0,true,false,null,{"b":"c"}],"__proto__":{"x":1},"10":1,"9":2}';
    const value = parseJson(text) as Record<string, unknown>;
    expect(isDeepStrictEqual(value, JSON.parse(text))).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["9", "10", "a", "__proto__"]);
    expect(() => parseJson('{"a":')).toThrow(SyntaxError);
    expect(() => parseJson("")).toThrow(SyntaxError);
  });

  it("reads a nesting far deeper than the call stack allows for recursion", () => {
    const depth = 200_000;
    const text = `${'{"k\\\\":['.repeat(depth)}1${"]}".repeat(depth)}`;
    let node = parseJson(text) as Record<string, unknown[]>;
    for (let i = 1; i < depth; i += 1)
      node = (node["k\\"] as unknown[])[0] as Record<string, unknown[]>;
    expect(node["k\\"]).toEqual([1]);
  });
});

/** Keys built from the characters an escape is written with, so V8's confusion has room. */
const trickyKey = fc
  .array(fc.constantFrom("a", "b", "\\", '"', "\n", "\u0001", "\u2028", "é", "😀", "0", "1"), {
    maxLength: 5,
  })
  .map((parts) => parts.join(""));

const trickyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    trickyKey,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(trickyKey, fc.constantFrom("__proto__", "10")), tie("value"), {
      maxKeys: 5,
    }),
  ),
})).value;

/**
 * For every object in the value, the keys V8 could confuse its keys with (each key's written
 * form cut to the key's length), after the same keys before it: the shapes that poison a parse.
 */
function poisonFor(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) poisonFor(item);
    return;
  }
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i] as string;
    const written = JSON.stringify(key).slice(1, 1 + key.length);
    if (written !== key) teach(keys[i - 1] ?? "", written);
    poisonFor((value as Record<string, unknown>)[key]);
  }
}

/** The same JSON: the same keys in the same order, and equal leaves; prototypes aside. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) {
    return Object.is(a, b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (!isDeepStrictEqual(keys, Object.keys(b))) return false;
  return keys.every((key) =>
    sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

describe("parseJson, properties", () => {
  it("reads back exactly what JSON.stringify wrote, after the confusable keys were seen", () => {
    fc.assert(
      fc.property(trickyJson, (value) => {
        poisonFor(value);
        const text = JSON.stringify(value);
        expect(sameJson(parseJson(text), value)).toBe(true);
        expect(sameJson(parseJsonExactly(text), value)).toBe(true);
        expect(sameJson(parseJsonExactly(JSON.stringify(value, null, 2)), value)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
