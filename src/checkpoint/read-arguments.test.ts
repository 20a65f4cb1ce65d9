import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseJson } from "../shared/parse-json.js";
import { readArguments } from "./read-arguments.js";

const limits = { maxBytes: 1024, maxDepth: 8 };

describe("readArguments", () => {
  it("reads a JSON object", () => {
    expect(readArguments('{"path":"a.txt","n":[1,{"x":null}]}', limits)).toEqual({
      status: "read",
      args: { path: "a.txt", n: [1, { x: null }] },
    });
  });

  it.each([
    ["", /empty/],
    ["   \n\t", /empty/],
    ["{", /not valid JSON/],
    ["{'a':1}", /not valid JSON/],
    ["[1,2]", /not an array/],
    ['"text"', /not a string/],
    ["42", /not a number/],
    ["null", /not null/],
    ["true", /not a boolean/],
    ['{"a":1,"a":2}', /"a" appears twice/],
    ['{"x":{"b":1,"b":1}}', /"b" appears twice/],
    ['{"a":1,"\\u0061":2}', /"a" appears twice/],
  ])("refuses %j", (text, problem) => {
    const outcome = readArguments(text, limits);
    expect(outcome.status).toBe("unreadable");
    expect(outcome.status === "unreadable" && outcome.problem).toMatch(problem);
  });

  it("allows the same key in sibling objects and in arrays of objects", () => {
    expect(readArguments('{"a":{"k":1},"b":{"k":2},"c":[{"k":1},{"k":2}]}', limits).status).toBe(
      "read",
    );
    expect(readArguments('{"a":"b","b":"a"}', limits).status).toBe("read");
  });

  it("refuses values that are not text", () => {
    expect(readArguments({ a: 1 }, limits)).toEqual({
      status: "unreadable",
      problem: "the arguments must be JSON text, not a object",
    });
    expect(readArguments(undefined, limits).status).toBe("unreadable");
  });

  it("refuses text over the size cap, counted in UTF-8 bytes", () => {
    expect(readArguments(`{"a":"${"x".repeat(1100)}"}`, limits)).toMatchObject({
      problem: /1024-byte limit/,
    });
    // 400 characters, 1200 bytes.
    expect(readArguments(`{"a":"${"€".repeat(400)}"}`, limits)).toMatchObject({
      problem: /1024-byte limit/,
    });
    expect(readArguments(`{"a":"${"€".repeat(300)}"}`, limits).status).toBe("read");
  });

  it("refuses nesting past the cap, counting the top-level object", () => {
    const nested = (depth: number) => `${'{"a":'.repeat(depth - 1)}{}${"}".repeat(depth - 1)}`;
    expect(readArguments(nested(8), limits).status).toBe("read");
    expect(readArguments(nested(9), limits)).toMatchObject({
      problem: /nested deeper than the limit of 8/,
    });
    expect(readArguments(`{"a":${"[".repeat(20)}${"]".repeat(20)}}`, limits).status).toBe(
      "unreadable",
    );
  });

  it("keeps __proto__ as an own key and never touches a prototype", () => {
    const outcome = readArguments(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"p":1}}}',
      limits,
    );
    expect(outcome.status).toBe("read");
    if (outcome.status !== "read") return;
    expect(Object.getPrototypeOf(outcome.args)).toBe(Object.prototype);
    expect(Object.hasOwn(outcome.args, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("agrees with JSON.parse on every object JSON.parse accepts without duplicate keys, and refuses keys JSON must escape", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })), (value) => {
        const text = JSON.stringify(value);
        const outcome = readArguments(text, { maxBytes: 1 << 20, maxDepth: 64 });
        if (keys(value).some((key) => JSON.stringify(key) !== `"${key}"`)) {
          expect(outcome.status === "unreadable" && outcome.problem).toMatch(/holds a quote/);
        } else {
          expect(outcome).toEqual({ status: "read", args: parseJson(text) });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.json(), fc.stringMatching(/^[{}[\]",:\\a-z0-9 ]*$/)),
        (text) => {
          const outcome = readArguments(text, limits);
          expect(["read", "unreadable"]).toContain(outcome.status);
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe("readArguments: numbers", () => {
  it.each([
    ['{"amount":1e400}', /1e400.*not finite|too large/],
    ['{"amount":-1e400}', /-1e400/],
    ['{"a":[1,2,{"b":[1E+999]}]}', /1E\+999/],
    ['{"a":{"b":{"c":-2e308}}}', /-2e308/],
    [`{"n":${"9".repeat(400)}}`, /not finite|too large/],
    [`{"n":${"9".repeat(400)}.5}`, /not finite|too large/],
    ['{"id":12345678901234567890}', /12345678901234567890.*string/],
    ['{"id":-9007199254740993}', /-9007199254740993/],
    ['{"tiny":1e-400}', /1e-400.*zero/],
    ['{"tiny":[-5e-325]}', /-5e-325/],
  ])("refuses %s", (text, problem) => {
    const outcome = readArguments(text, limits);
    expect(outcome.status).toBe("unreadable");
    expect(outcome.status === "unreadable" && outcome.problem).toMatch(problem);
  });

  it("reads safe integers, ordinary doubles and exponents that fit", () => {
    const text =
      '{"a":9007199254740991,"b":-9007199254740991,"c":1.7976931348623157e308,"d":5e-324,"e":0.1,"f":1e21,"g":0e0,"h":1.000000000000000000001}';
    expect(readArguments(text, limits)).toEqual({ status: "read", args: parseJson(text) });
  });

  it("reads -0 as 0, so the policy, the approver and the handler see the same number", () => {
    const outcome = readArguments('{"a":-0,"b":[-0.0],"c":{"d":-0e5},"e":"-0"}', limits);
    expect(outcome.status).toBe("read");
    if (outcome.status !== "read") return;
    expect(Object.is(outcome.args.a, 0)).toBe(true);
    expect(Object.is((outcome.args.b as number[])[0], 0)).toBe(true);
    expect(Object.is((outcome.args.c as { d: number }).d, 0)).toBe(true);
    expect(outcome.args.e).toBe("-0");
  });

  it("keeps __proto__ an own key when -0 is normalised", () => {
    const outcome = readArguments('{"__proto__":{"x":-0}}', limits);
    expect(outcome.status).toBe("read");
    if (outcome.status !== "read") return;
    expect(Object.getPrototypeOf(outcome.args)).toBe(Object.prototype);
    expect(Object.hasOwn(outcome.args, "__proto__")).toBe(true);
  });

  it("refuses a number that is not finite at any depth, in arrays and object values", () => {
    const huge = fc
      .tuple(
        fc.constantFrom("", "-"),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom("e", "E", "e+"),
        fc.integer({ min: 309, max: 100_000 }),
      )
      .map(([sign, digit, e, exp]) => `${sign}${digit}${e}${exp}`);
    const container = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.constant("HOLE"),
        fc
          .tuple(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }), tie("node"))
          .map(
            ([others, inner]) => `[${[...others.map((o) => JSON.stringify(o)), inner].join(",")}]`,
          ),
        fc
          .tuple(fc.string({ maxLength: 5 }), tie("node"))
          .map(([key, inner]) => `{${JSON.stringify(key)}:${inner}}`),
      ),
    })).node;
    fc.assert(
      fc.property(huge, container, fc.string({ maxLength: 5 }), (number, shape, key) => {
        const text = `{${JSON.stringify(key)}:${shape.replace("HOLE", number)}}`;
        const outcome = readArguments(text, { maxBytes: 1 << 20, maxDepth: 64 });
        expect(outcome.status).toBe("unreadable");
      }),
      { numRuns: 2000 },
    );
  });

  it("reads every finite double and safe integer as JSON.parse does; refuses integers that do not read back as written", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        const text = `{"n":${JSON.stringify(n)}}`;
        const outcome = readArguments(text, limits);
        expect(outcome).toEqual({ status: "read", args: { n: Object.is(n, -0) ? 0 : n } });
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.bigInt(), (n) => {
        const text = `{"n":${n}}`;
        const exact = String(Number(n)) === String(n);
        const outcome = readArguments(text, limits);
        expect(outcome.status).toBe(exact ? "read" : "unreadable");
        if (n >= -(2n ** 53n) && n <= 2n ** 53n) expect(outcome.status).toBe("read");
      }),
      { numRuns: 3000 },
    );
  });
});

/** Every object key in a JSON value, at any depth. */
function keys(value: unknown): string[] {
  if (typeof value !== "object" || value === null) return [];
  if (Array.isArray(value)) return value.flatMap(keys);
  return Object.entries(value).flatMap(([key, item]) => [key, ...keys(item)]);
}

describe("readArguments: keys JSON must escape (ADR 0083)", () => {
  it.each([
    ['{"a\\n":1}', "a\n"],
    ['{"x":{"say \\"hi\\"":1}}', 'say "hi"'],
    ['{"C:\\\\notes":1}', "C:\\notes"],
    ['{"a":[{"\\u0000":1}]}', "\u0000"],
    ['{"\\ud800":1}', "\ud800"],
  ])("refuses %s, naming the key", (text, key) => {
    const outcome = readArguments(text, limits);
    expect(outcome.status).toBe("unreadable");
    expect(outcome.status === "unreadable" && outcome.problem).toContain(
      `the key ${JSON.stringify(key)} holds a quote`,
    );
  });

  it("refuses a lone surrogate written as it is, which JSON.stringify writes back as an escape", () => {
    const outcome = readArguments(`{"mode":"safe","\ud800":"x"}`, limits);
    expect(outcome.status === "unreadable" && outcome.problem).toContain('the key "\\ud800"');
  });

  it("names a long key by its first 80 characters", () => {
    const key = "k".repeat(5000);
    for (const text of [`{"${key}\\n":1}`, `{"${key}":1,"${key}":2}`]) {
      const outcome = readArguments(text, { maxBytes: 1 << 20, maxDepth: 8 });
      expect(outcome.status === "unreadable" && outcome.problem.length).toBeLessThan(400);
      expect(outcome.status === "unreadable" && outcome.problem).toContain(`"${"k".repeat(80)}…"`);
    }
  });

  it("reads keys written with escapes that JSON need not escape", () => {
    expect(readArguments('{"caf\\u00e9":1,"\\ud83d\\ude00":2,"\\u0061":3}', limits)).toEqual({
      status: "read",
      args: { café: 1, "😀": 2, a: 3 },
    });
  });

  it("refuses a key V8 misread after the process saw the key it confuses it with (nodejs/node#63785)", () => {
    // A first key no other object has, so V8 knows one next key after it: the one it confuses.
    JSON.parse('{"escapedKeyProbe":[],"a\\\\":0}');
    const outcome = readArguments('{"escapedKeyProbe":{"b":-0},"a\\n":-0}', limits);
    expect(outcome.status === "unreadable" && outcome.problem).toContain('the key "a\\n"');
  });
});
