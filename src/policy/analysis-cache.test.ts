import { describe, expect, it } from "vitest";
import { createAnalysisCache, MAX_CACHED_CHARS } from "./analysis-cache.js";
import type { ShellParser } from "./shell/shell-parser.js";

function countingParser(): ShellParser & { calls: string[] } {
  const calls: string[] = [];
  const analyse = (script: string) => {
    calls.push(script);
    return { commands: [], uncertainties: [] };
  };
  return { calls, analyse };
}

describe("createAnalysisCache", () => {
  it("analyses a script once while it stays among the most recent", () => {
    const parser = countingParser();
    const analyse = createAnalysisCache(parser, 2);
    analyse("a");
    analyse("b");
    analyse("a"); // a is now the most recent
    analyse("c"); // evicts b
    analyse("a");
    analyse("b");
    expect(parser.calls).toEqual(["a", "b", "c", "b"]);
  });

  it("does not keep very long scripts", () => {
    const parser = countingParser();
    const analyse = createAnalysisCache(parser, 4);
    const long = "x".repeat(MAX_CACHED_CHARS + 1);
    analyse(long);
    analyse(long);
    expect(parser.calls).toHaveLength(2);
  });
});
