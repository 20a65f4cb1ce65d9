import { describe, expect, it } from "vitest";
import { compileGlob, isLiteralGlob } from "./compile-glob.js";

describe("compileGlob", () => {
  it("matches tool names with wildcards, braces and classes", () => {
    expect(compileGlob("mcp__github__*")("mcp__github__create_issue")).toBe(true);
    expect(compileGlob("mcp__github__*")("mcp__gitlab__x")).toBe(false);
    expect(compileGlob("{read,write}_file")("write_file")).toBe(true);
    expect(compileGlob("run_command")("run_command")).toBe(true);
    expect(compileGlob("run_command")("run_commands")).toBe(false);
  });

  it("throws on globs that are broken or can never match", () => {
    for (const bad of ["", "a[", "{a,b", "*(a", "a]", "[z-a]"]) {
      expect(() => compileGlob(bad), bad).toThrow();
    }
  });

  it("tells literal names from globs", () => {
    expect(isLiteralGlob("read_file")).toBe(true);
    expect(isLiteralGlob("mcp__*")).toBe(false);
    expect(isLiteralGlob("{a,b}")).toBe(false);
  });
});
