import { describe, expect, it } from "vitest";
import { sanitiseError } from "./sanitise-error.js";

describe("sanitiseError", () => {
  it("keeps the first line of the message only", () => {
    const error = new Error("boom\n    at secret (/home/me/app.js:1:1)");
    expect(sanitiseError(error, {})).toBe("boom");
  });

  it("redacts environment values", () => {
    expect(
      sanitiseError(new Error("401 for key sk-live-123456"), { API_KEY: "sk-live-123456" }),
    ).toBe("401 for key [redacted]");
  });

  it("handles non-errors and control characters", () => {
    expect(sanitiseError("a\u0007b", {})).toBe("a b");
    expect(sanitiseError({ weird: true }, {})).toMatch(/without an error message/);
    expect(sanitiseError(new Error("x".repeat(2000)), {}).length).toBeLessThanOrEqual(501);
  });
});
