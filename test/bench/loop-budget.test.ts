import { describe, expect, it } from "vitest";
import { storeBudget } from "../../bench/loop-budget.js";
import { LEAN_LAYOUT, measureReadCallFloor, TODAYS_LAYOUT } from "../../bench/read-floor.js";

describe("bench/loop's budget: what a read target leaves the store", () => {
  const shares = new Map([
    ["store", 0.6],
    ["checkpoint", 0.15],
    ["loop", 0.1],
    ["policy", 0.05],
    ["bench", 0.04],
    ["gc", 0.03],
    ["other", 0.03],
  ]);

  it("takes the rest at its least: only docket's own layers outside the store", () => {
    const budget = storeBudget({ aiSdkUs: 100, docketUs: 200, shares }, { ratio: 1, floorUs: 20 });
    expect(budget.restUs).toBeCloseTo(80, 6); // 40% of 200: every layer but the store
    expect(budget.ownRestUs).toBeCloseTo(60, 6); // checkpoint, loop, policy: 30% of 200
    expect(budget.targetUs).toBe(100);
    expect(budget.leftUs).toBeCloseTo(40, 6);
    expect(budget.leftBesideRestUs).toBeCloseTo(20, 6);
    expect(budget.belowFloor).toBe(false);
  });

  it("says a target is out of reach when what it leaves is below the floor", () => {
    const half = storeBudget({ aiSdkUs: 100, docketUs: 200, shares }, { ratio: 0.5, floorUs: 20 });
    expect(half.targetUs).toBe(50);
    expect(half.leftUs).toBeCloseTo(-10, 6);
    expect(half.belowFloor).toBe(true);
    const justAbove = storeBudget(
      { aiSdkUs: 100, docketUs: 200, shares },
      { ratio: 0.8, floorUs: 20 },
    );
    expect(justAbove.leftUs).toBeCloseTo(20, 6);
    expect(justAbove.belowFloor).toBe(false);
  });

  it("scales the shares by the main thread's CPU, which the profile samples", () => {
    // 200 µs in all, 160 of it on the main thread: V8's other threads did 40 µs, no layer's.
    const budget = storeBudget(
      { aiSdkUs: 100, docketUs: 200, mainThreadUs: 160, shares },
      { ratio: 1, floorUs: 20 },
    );
    expect(budget.ownRestUs).toBeCloseTo(48, 6); // 30% of 160
    expect(budget.restUs).toBeCloseTo(104, 6); // 200 less the store's 60% of 160
    expect(budget.leftUs).toBeCloseTo(52, 6);
  });

  it("measures the read call's floor of both layouts on a real SQLite file", async () => {
    const today = await measureReadCallFloor(TODAYS_LAYOUT, 1);
    const lean = await measureReadCallFloor(LEAN_LAYOUT, 1);
    for (const floor of [today, lean]) {
      expect(Number.isFinite(floor)).toBe(true);
      expect(floor).toBeGreaterThan(0);
    }
  });
});
