import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { versionControlPath } from "./version-control-path.js";

describe("versionControlPath", () => {
  it("names .git anywhere, and what a repository's configuration makes git run or load", () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-vcs-path-")));
    mkdirSync(join(ws, ".git"));
    writeFileSync(join(ws, ".git", "config"), "[core]\n\thooksPath = .husky\n");
    expect(versionControlPath(ws, join(ws, ".git", "hooks", "pre-push"))).toContain(".git");
    expect(versionControlPath(ws, join(ws, "vendor", "x", ".git", "config"))).toContain(".git");
    expect(versionControlPath(ws, join(ws, ".husky", "pre-commit"))).toContain(".husky");
    expect(versionControlPath(ws, join(ws, "husky.txt"))).toBeUndefined();
    expect(versionControlPath(ws, join(ws, "src", "git.ts"))).toBeUndefined();
  });

  it("names every path with a .git part, in any case, and no path without one or a guard", () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-vcs-prop-")));
    const part = fc.stringMatching(/^[A-Za-z0-9_.-]{1,8}$/).filter((p) => p !== "." && p !== "..");
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 4 }),
        fc.array(part, { maxLength: 3 }),
        fc.constantFrom(".git", ".GIT", ".Git"),
        (before, after, git) => {
          expect(versionControlPath(ws, join(ws, ...before, git, ...after))).toBeDefined();
          const plain = before.filter((p) => p.toLowerCase() !== ".git");
          expect(versionControlPath(ws, join(ws, ...plain, "file.txt"))).toBeUndefined();
        },
      ),
      { numRuns: 200 },
    );
  });
});
