import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readArguments } from "../checkpoint/read-arguments.js";
import { argumentsText } from "./arguments-text.js";

const limits = { maxBytes: 1 << 20, maxDepth: 64 };

describe("argumentsText", () => {
  it("serialises what an MCP client sent as JSON text", () => {
    expect(argumentsText({ a: [1, "x", null], b: { c: true } })).toBe(
      '{"a":[1,"x",null],"b":{"c":true}}',
    );
    expect(argumentsText(undefined)).toBe("{}");
  });

  it("keeps a number that parsed to Infinity unreadable instead of turning it into null", () => {
    // The SDK's JSON.parse made 1e400 Infinity; JSON.stringify alone would send null to the policy.
    for (const value of [
      { amount: Number.POSITIVE_INFINITY },
      { amount: Number.NEGATIVE_INFINITY },
      { a: [1, { b: Number.POSITIVE_INFINITY }] },
    ]) {
      const text = argumentsText(value);
      expect(text).not.toContain("null");
      expect(readArguments(text, limits)).toMatchObject({
        status: "unreadable",
        problem: expect.stringMatching(/not finite|too large/),
      });
    }
  });

  it("agrees with JSON.stringify on every JSON value", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })), (value) => {
        expect(argumentsText(value)).toBe(JSON.stringify(value));
      }),
      { numRuns: 1000 },
    );
  });
});
