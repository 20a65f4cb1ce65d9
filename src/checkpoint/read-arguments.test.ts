import fc from "fast-check";
import { describe, expect, it } from "vitest";
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

  it("agrees with JSON.parse on every object JSON.parse accepts without duplicate keys", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 4 })), (value) => {
        const text = JSON.stringify(value);
        const outcome = readArguments(text, { maxBytes: 1 << 20, maxDepth: 64 });
        expect(outcome).toEqual({ status: "read", args: JSON.parse(text) });
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
