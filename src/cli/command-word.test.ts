import { describe, expect, it } from "vitest";
import { commandWord } from "./command-word.js";

describe("commandWord", () => {
  it("is the first argument that is not an option", () => {
    expect(commandWord(["run", "Hi."])).toBe("run");
    expect(commandWord(["--no-color", "run", "Hi."])).toBe("run");
    expect(commandWord(["--no-color", "policy", "test", "cases.yaml"])).toBe("policy");
  });

  it("is undefined for a line of options only", () => {
    expect(commandWord([])).toBeUndefined();
    expect(commandWord(["--help"])).toBeUndefined();
    expect(commandWord(["-v"])).toBeUndefined();
  });
});
