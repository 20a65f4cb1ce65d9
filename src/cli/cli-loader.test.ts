import { describe, expect, it } from "vitest";
import { cacheEntryName } from "./cli-loader.js";

describe("cacheEntryName", () => {
  const node = `node${process.versions.node}-${process.arch}`;

  it("names one entry per command, with Node's version and the architecture", () => {
    expect(cacheEntryName(["run", "Hi."])).toBe(`cli-run-${node}`);
    expect(cacheEntryName(["audit", "verify"])).toBe(`cli-audit-${node}`);
    // Options before the command do not change it.
    expect(cacheEntryName(["--no-color", "run", "Hi."])).toBe(`cli-run-${node}`);
  });

  it("gives anything that is not a command word one shared name, never a path", () => {
    for (const argv of [[], ["--help"], ["../../x"], ["Run"], ["a/b"], ["x".repeat(40)], ["é"]])
      expect(cacheEntryName(argv), JSON.stringify(argv)).toBe(`cli-docket-${node}`);
  });
});
