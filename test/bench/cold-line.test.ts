import { describe, expect, it } from "vitest";
import { line, type Sample } from "../../bench/cold.js";

const sample = (answerMs: number, exitMs: number): Sample => ({
  answerMs,
  exitMs,
  cpuMs: 100,
  rssMb: 60,
});

describe("the cold bench's verdict", () => {
  it("judges a target on the time to exit, not to the first byte", () => {
    const answeredEarly = [sample(180, 210), sample(185, 205), sample(190, 215)];
    const printed = line("run, one scripted turn", answeredEarly, 200);
    expect(printed).toContain("first byte  185 ms");
    expect(printed).toContain("exit median  210 ms");
    expect(printed).toContain("(target 200, to exit: NOT met)");
    const exitedInTime = [sample(150, 190), sample(160, 195), sample(170, 199)];
    expect(line("run, one scripted turn", exitedInTime, 200)).toContain(
      "(target 200, to exit: met)",
    );
  });

  it("prints no verdict without a target", () => {
    expect(line("node -e 0 (the floor)", [sample(40, 45)])).not.toContain("target");
  });
});
