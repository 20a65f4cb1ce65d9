import { describe, expect, it } from "vitest";
import { beforeWasmCompile, prepareWasmCompile } from "./before-wasm-compile.js";

describe("beforeWasmCompile", () => {
  it("runs what it was given once, at the first prepare, and nothing after", () => {
    const calls: string[] = [];
    beforeWasmCompile(() => calls.push("first"));
    beforeWasmCompile(() => calls.push("second"));
    prepareWasmCompile();
    prepareWasmCompile();
    expect(calls).toEqual(["second"]);
  });

  it("does nothing when nothing was given", () => {
    expect(() => prepareWasmCompile()).not.toThrow();
  });
});
