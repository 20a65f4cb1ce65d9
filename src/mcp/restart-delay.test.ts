import { describe, expect, it } from "vitest";
import { restartDelay } from "./restart-delay.js";

describe("restartDelay", () => {
  it("doubles from 0.5 s and stops at 30 s", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => restartDelay(n))).toEqual([
      0, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000,
    ]);
    expect(restartDelay(2, { baseMs: 10, maxMs: 15 })).toBe(15);
  });
});
