import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "./canonical-json.js";
import { legacyCanonicalJson } from "./legacy-canonical-json.js";

describe("legacyCanonicalJson (the form before RFC 8785)", () => {
  it("puts array-index keys first, in numeric order, as docket hashed them before", () => {
    expect(legacyCanonicalJson({ b: 1, 10: 2, 9: 3, a: 4, "01": 5 })).toBe(
      '{"9":3,"10":2,"01":5,"a":4,"b":1}',
    );
    expect(legacyCanonicalJson(JSON.parse('{"__proto__":{"x":1},"a":[{"2":0,"1":0}]}'))).toBe(
      '{"__proto__":{"x":1},"a":[{"1":0,"2":0}]}',
    );
  });

  it("agrees with canonicalJson wherever no key is an array index", () => {
    const key = fc.string().filter((k) => !/^(0|[1-9][0-9]*)$/.test(k));
    const json = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.constant(null),
        fc.boolean(),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.string(),
        fc.array(tie("value")),
        fc.dictionary(key, tie("value")),
      ),
    })).value;
    fc.assert(
      fc.property(json, (value) => {
        expect(legacyCanonicalJson(value)).toBe(canonicalJson(value));
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses a cycle", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => legacyCanonicalJson(cyclic)).toThrow(TypeError);
  });
});
