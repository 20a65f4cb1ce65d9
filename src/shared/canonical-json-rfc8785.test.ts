import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";
import { parseJson } from "./parse-json.js";

/** RFC 8785's own vectors; the fixture says where each comes from. */
interface Vectors {
  readonly files: readonly { name: string; input: string; output: string; outputHex: string }[];
  readonly numbers: readonly { bits: string; text: string }[];
}
const vectors = parseJson(
  readFileSync(new URL("../../test/fixtures/jcs/rfc8785-vectors.json", import.meta.url), "utf8"),
) as Vectors;

describe("canonicalJson against RFC 8785's test vectors", () => {
  it.each(vectors.files)(
    "$name: the canonical text, byte for byte",
    ({ input, output, outputHex }) => {
      const text = canonicalJson(parseJson(input));
      expect(text).toBe(output);
      expect(Buffer.from(text, "utf8").toString("hex")).toBe(outputHex.replace(/\s+/g, ""));
    },
  );

  it.each(vectors.numbers)("number $bits is written $text", ({ bits, text }) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setBigUint64(0, BigInt(`0x${bits}`));
    const value = view.getFloat64(0);
    expect(canonicalJson(value)).toBe(text);
    expect(canonicalJson({ n: [value] })).toBe(`{"n":[${text}]}`);
  });

  it("covers the forms the issue names: 1e21, -0, 5e-324, and index-like keys", () => {
    expect(canonicalJson([1e21, -0, 5e-324, 1e-7, 123456789012345680000])).toBe(
      "[1e+21,0,5e-324,1e-7,123456789012345680000]",
    );
    expect(canonicalJson(parseJson('{"10":1,"9":2,"1":3,"":4}'))).toBe('{"":4,"1":3,"10":1,"9":2}');
  });

  it("keeps a lone surrogate as JSON.stringify escapes it (ADR 0062), so nothing is lost", () => {
    const value = { "\ud800": "x\udc00y" };
    const text = canonicalJson(value);
    expect(text).toBe('{"\\ud800":"x\\udc00y"}');
    expect(parseJson(text)).toEqual(value);
  });
});

/** Any JSON value, with keys that look like array indices mixed in among the others. */
const jsonWithIndexKeys = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.string({ unit: "grapheme" }),
    fc.array(tie("value")),
    fc.dictionary(
      fc.oneof(fc.string(), fc.constantFrom("0", "1", "2", "9", "10", "01", "-1", "4294967295")),
      tie("value"),
    ),
  ),
})).value;

describe("canonicalJson, properties", () => {
  it("parses back to an equal value, and is its own canonical form", () => {
    fc.assert(
      fc.property(jsonWithIndexKeys, (value) => {
        const text = canonicalJson(value);
        // -0 is written 0, as RFC 8785 says: equal as JSON numbers, not as Object.is.
        // parseJson, not JSON.parse: V8 can misread escaped keys (nodejs/node#63785).
        expect(parseJson(text)).toEqual(parseJson(JSON.stringify(value)));
        expect(canonicalJson(parseJson(text))).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it("is the same text whatever order the keys were written in", () => {
    fc.assert(
      fc.property(jsonWithIndexKeys, fc.integer(), (value, seed) => {
        // Rebuild every object with its keys in another order (a rotation chosen by seed).
        const shuffled = mapObjects(parseJson(JSON.stringify(value)), (v) => {
          const entries = Object.entries(v);
          const turn = entries.length === 0 ? 0 : Math.abs(seed) % entries.length;
          const copy: Record<string, unknown> = Object.create(null);
          for (const [key, item] of [...entries.slice(turn), ...entries.slice(0, turn)].reverse()) {
            copy[key] = item;
          }
          return copy;
        });
        expect(canonicalJson(shuffled)).toBe(canonicalJson(value));
      }),
      { numRuns: 1000 },
    );
  });
});

/** Rebuild every object in a JSON value with `rebuild`, innermost first. */
function mapObjects(value: unknown, rebuild: (object: object) => unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => mapObjects(item, rebuild));
  const inner: Record<string, unknown> = Object.create(null);
  for (const [key, item] of Object.entries(value)) inner[key] = mapObjects(item, rebuild);
  return rebuild(inner);
}
