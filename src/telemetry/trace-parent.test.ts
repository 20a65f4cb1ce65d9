import { trace } from "@opentelemetry/api";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contextFromTraceparent } from "./trace-parent.js";

const VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

describe("contextFromTraceparent", () => {
  it("reads a valid traceparent as a remote, sampled parent", () => {
    const parent = contextFromTraceparent(VALID);
    expect(parent && trace.getSpanContext(parent)).toEqual({
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: 1,
      isRemote: true,
    });
  });

  it("reads a later version by its first four fields", () => {
    const parent = contextFromTraceparent(`01-${VALID.slice(3)}-what-comes-later`);
    expect(parent && trace.getSpanContext(parent)?.spanId).toBe("00f067aa0ba902b7");
  });

  it.each([
    ["not a string", 42],
    ["upper case", VALID.toUpperCase()],
    ["all-zero trace id", `00-${"0".repeat(32)}-00f067aa0ba902b7-01`],
    ["all-zero span id", `00-4bf92f3577b34da6a3ce929d0e0e4736-${"0".repeat(16)}-01`],
    ["version ff", `ff-${VALID.slice(3)}`],
    ["extra fields on version 00", `${VALID}-extra`],
    ["short span id", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902-01"],
    ["huge", `${VALID}${"-a".repeat(10_000)}`],
    ["an object", { toString: () => VALID }],
  ])("refuses %s", (_what, value) => {
    expect(contextFromTraceparent(value)).toBeUndefined();
  });

  it("never throws, and accepts only well-formed ids, whatever it is given", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.anything()), (value) => {
        const parent = contextFromTraceparent(value);
        if (parent === undefined) return;
        const span = trace.getSpanContext(parent);
        expect(span?.traceId).toMatch(/^[0-9a-f]{32}$/);
        expect(span?.spanId).toMatch(/^[0-9a-f]{16}$/);
      }),
    );
  });
});
