import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonFieldValue, mostlyPrimitive } from "../../test/store/support/json-field-values.js";
import type { CallOutcome } from "./call-record.js";
import { outcomeJson } from "./stored-outcome.js";

const KEYS = ["kind", "status", "reason", "message", "output", "approvalId", "durationMs", "at"];

/** Outcomes of docket's shape, and some that are not (a key dropped, added, or moved). */
const outcome = fc
  .tuple(
    fc.tuple(...KEYS.map(() => mostlyPrimitive)),
    fc.constantFrom("as built", "key dropped", "key added", "reversed"),
  )
  .map(([values, bend]) => {
    let entries: [string, unknown][] = KEYS.map((key, i) => [key, values[i]]);
    if (bend === "key dropped") entries = entries.slice(1);
    if (bend === "key added") entries.push(["result", { a: 1 }]);
    if (bend === "reversed") entries.reverse();
    return Object.fromEntries(entries) as unknown as CallOutcome;
  });

describe("outcomeJson", () => {
  it("is JSON.stringify of the outcome with its message and output replaced, byte for byte", () => {
    fc.assert(
      fc.property(outcome, jsonFieldValue, jsonFieldValue, (stored, message, output) => {
        expect(outcomeJson(stored, message, output)).toBe(
          JSON.stringify({ ...stored, message, output }),
        );
        expect(outcomeJson(stored, stored.message, stored.output)).toBe(JSON.stringify(stored));
      }),
      { numRuns: 3000 },
    );
  });

  it("writes a finished read's outcome with the marks", () => {
    const finished: CallOutcome = {
      kind: "finished",
      status: "ok",
      reason: undefined,
      message: "noop succeeded.",
      output: "1",
      approvalId: undefined,
      durationMs: 0.25,
      at: 1796160027182,
    };
    expect(outcomeJson(finished, 1, 2)).toBe(
      '{"kind":"finished","status":"ok","message":1,"output":2,"durationMs":0.25,"at":1796160027182}',
    );
  });
});
