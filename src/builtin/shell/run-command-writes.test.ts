import { describe, expect, it } from "vitest";
import { runCommandWrites } from "./run-command-writes.js";

describe("runCommandWrites", () => {
  it("is false only for a script proven read-only, plain words or not", async () => {
    expect(await runCommandWrites({ command: "ls -la src" })).toBe(false);
    expect(await runCommandWrites({ command: "git status --short && rg -n TODO src | head" })).toBe(
      false,
    );
    expect(await runCommandWrites({ command: "npm install" })).toBe(true);
    expect(await runCommandWrites({ command: "ls > out.txt" })).toBe(true);
    expect(await runCommandWrites({ command: "bash -lc 'ls; touch x'" })).toBe(true);
  });
});
