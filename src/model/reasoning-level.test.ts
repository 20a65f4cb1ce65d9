import { describe, expect, it } from "vitest";
import { checkReasoningLevel, REASONING_LEVELS } from "./reasoning-level.js";

describe("checkReasoningLevel", () => {
  it.each(REASONING_LEVELS)("accepts %s", (level) => {
    expect(checkReasoningLevel(level, "--reasoning")).toBe(level);
  });

  it.each(["", "HIGH", "hihg", "high ", "__proto__", "toString"])(
    "refuses %j, naming where and the levels",
    (value) => {
      expect(() => checkReasoningLevel(value, "--reasoning")).toThrowError(
        /^--reasoning: .* is not a reasoning level\. Use one of: provider-default, none, minimal/,
      );
    },
  );
});
