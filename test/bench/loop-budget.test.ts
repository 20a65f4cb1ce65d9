import { describe, expect, it } from "vitest";
import { measureReadCallFloor } from "../../bench/commit-floor.js";
import { storeBudget } from "../../bench/loop-budget.js";

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

  it("measures the read call's floor on a real SQLite file of docket's schema", async () => {
    const floor = await measureReadCallFloor();
    expect(Number.isFinite(floor)).toBe(true);
    expect(floor).toBeGreaterThan(0);
  });
});
