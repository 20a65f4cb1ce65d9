import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mostlyPrimitive } from "../../test/store/support/json-field-values.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import { resultJson } from "./result-json.js";

const KEYS = ["callId", "name", "status", "output", "message", "durationMs", "rule"];

const result = fc
  .tuple(
    fc.tuple(...KEYS.map(() => mostlyPrimitive)),
    fc.constantFrom("as built", "moved", "extra"),
  )
  .map(([values, bend]) => {
    const entries: [string, unknown][] = KEYS.map((key, i) => [key, values[i]]);
    if (bend === "moved") entries.push(entries.shift() as [string, unknown]);
    if (bend === "extra") entries.push(["note", "x"]);
    return Object.fromEntries(entries) as unknown as ToolResult;
  });

describe("resultJson", () => {
  it("is JSON.stringify of the result when it answers at all", () => {
    fc.assert(
      fc.property(result, (value) => {
        const text = resultJson(value);
        if (text !== undefined) expect(text).toBe(JSON.stringify(value));
      }),
      { numRuns: 3000 },
    );
  });

  it("answers for a tool that returned text or a number, and not for other shapes", () => {
    const ok = {
      callId: "c1",
      name: "noop",
      status: "ok",
      output: 7,
      message: "noop succeeded.",
      durationMs: 0.5,
      rule: undefined,
    } as unknown as ToolResult;
    expect(resultJson(ok)).toBe(
      '{"callId":"c1","name":"noop","status":"ok","output":7,"message":"noop succeeded.","durationMs":0.5}',
    );
    expect(resultJson({ ...ok, output: { a: 1 } } as ToolResult)).toBeUndefined();
    expect(resultJson(null as unknown as ToolResult)).toBeUndefined();
  });
});
