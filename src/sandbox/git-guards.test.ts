import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitGuards } from "./git-guards.js";

describe("gitGuards", () => {
  it("pins each .git and repository folder and lists config and hooks, submodules included", () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-git-guards-")));
    mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    writeFileSync(join(ws, ".git", "config"), "");
    mkdirSync(join(ws, ".git", "modules", "lib", "hooks"), { recursive: true });
    mkdirSync(join(ws, "nested", ".git", "hooks"), { recursive: true });
    mkdirSync(join(ws, "plain"));
    const guards = gitGuards(ws);
    expect(guards.pinned.sort()).toEqual(
      [
        join(ws, ".git"),
        join(ws, ".git", "modules", "lib"),
        join(ws, "nested"),
        join(ws, "nested", ".git"),
      ].sort(),
    );
    expect(guards.readOnly.sort()).toEqual(
      [
        join(ws, ".git", "config"),
        join(ws, ".git", "hooks"),
        join(ws, ".git", "modules", "lib", "hooks"),
        join(ws, "nested", ".git", "hooks"),
      ].sort(),
    );
  });

  it("finds nothing in a workspace without repositories", () => {
    const ws = mkdtempSync(join(tmpdir(), "docket-git-guards-"));
    expect(gitGuards(ws)).toEqual({ pinned: [], readOnly: [] });
  });
});
