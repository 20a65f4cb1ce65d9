import { describe, expect, it } from "vitest";
import { monotonicMs } from "./monotonic-ms.js";

describe("monotonicMs", () => {
  it("never goes back, and counts in milliseconds with a fraction", () => {
    let last = monotonicMs();
    for (let i = 0; i < 1000; i++) {
      const now = monotonicMs();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    const start = monotonicMs();
    const until = Date.now() + 3;
    while (Date.now() < until) {}
    // At least the 2 whole milliseconds Date.now() saw pass; no upper bound (a busy machine).
    expect(monotonicMs() - start).toBeGreaterThanOrEqual(2);
  });
});
