import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sessionTitle } from "./session-title.js";

describe("sessionTitle", () => {
  it("takes the first line with words, flattened and cut", () => {
    expect(sessionTitle("\n\n  Fix the\tfailing test  \nin src/app.ts")).toBe(
      "Fix the failing test",
    );
    expect(sessionTitle(" \n\t")).toBeUndefined();
    expect(sessionTitle("a\u001b[31mred")).toBe("a [31mred");
    expect(sessionTitle("x".repeat(200))).toBe(`${"x".repeat(79)}…`);
  });

  it("is at most 80 characters on one line, without control characters, for any prompt", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (prompt) => {
        const title = sessionTitle(prompt);
        if (title === undefined) return;
        expect([...title].length).toBeLessThanOrEqual(80);
        expect(title).not.toMatch(/[\p{Cc}\p{Cf}]/u);
        expect(title.trim()).toBe(title);
      }),
    );
  });
});
