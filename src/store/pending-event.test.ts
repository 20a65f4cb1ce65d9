import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { storedText } from "./pending-event.js";

/** What a column keeps, computed the long way: UTF-8 round trip, then NUL replaced. */
function reference(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8").replaceAll("\u0000", "\ufffd");
}

describe("storedText", () => {
  it("gives what the column keeps, for any string, however often strings repeat", () => {
    const text = fc.oneof(
      fc.string({ unit: "binary" }),
      // Long enough for the native check: mostly ASCII, now and then a NUL, a non-ASCII
      // character or a lone surrogate anywhere in it.
      fc.string({ unit: "binary", minLength: 24, maxLength: 300 }),
      fc.string({
        unit: fc.oneof(
          { weight: 30, arbitrary: fc.constantFrom("a", "Z", "0", "_", "~") },
          {
            weight: 1,
            arbitrary: fc.constantFrom("\u0000", "é", "\ud800", "\udfff", "\u007f", "\u0080"),
          },
        ),
        minLength: 20,
        maxLength: 120,
      }),
      fc.constantFrom(
        "call_1",
        "ses_1",
        "noop",
        "a\u0000",
        "\ud800",
        "é",
        "",
        "call_1\u0000",
        "ses_0123456789abcdef0123456789",
        "ses_0123456789abcdef0123456789\u0000",
        "ses_0123456789abcdef012345678\ud800",
        "host-abcdef/1234/0123456789abcdef",
      ),
    );
    fc.assert(
      fc.property(fc.array(text, { maxLength: 12 }), (texts) => {
        for (const t of [...texts, ...texts.reverse()]) expect(storedText(t)).toBe(reference(t));
      }),
      { numRuns: 1000 },
    );
  });

  it("never lets a string that needs changing pass for one seen before", () => {
    expect(storedText("call_1")).toBe("call_1");
    expect(storedText("call_1\u0000")).toBe("call_1\ufffd");
    expect(storedText("\ud800call")).toBe("\ufffdcall");
    expect(storedText("call_1")).toBe("call_1");
    const session = "ses_0123456789abcdef0123456789";
    expect(storedText(session)).toBe(session);
    expect(storedText(`${session}\u0000`)).toBe(`${session}\ufffd`);
    expect(storedText(`${session.slice(0, -1)}\ud800`)).toBe(`${session.slice(0, -1)}\ufffd`);
    expect(storedText(session)).toBe(session);
  });
});
