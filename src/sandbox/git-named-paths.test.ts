import { describe, expect, it } from "vitest";
import { parseGitConfig } from "./git-config-file.js";
import { gitNamedPaths } from "./git-named-paths.js";

const base = { configDir: "/ws/.git", worktree: "/ws", home: "/home/u" };

describe("gitNamedPaths", () => {
  it("resolves includes from the config's folder, hooks and programs from the working tree", () => {
    const named = gitNamedPaths(
      parseGitConfig(
        [
          "[include]\n\tpath = ../team.cfg",
          '[includeIf "gitdir:/ws/"]\n\tpath = ~/work.cfg',
          "[core]\n\thooksPath = .husky/_\n\tfsmonitor = true\n\tpager = less",
          '[alias]\n\tup = "!./scripts/up.sh --fast"',
          '[diff "pdf"]\n\ttextconv = sh tools/pdf2txt',
          '[hook "lint"]\n\tcommand = bin/lint',
          "[user]\n\tname = ./not-a-program",
        ].join("\n"),
      ),
      base,
    );
    expect(named.includes).toEqual(["/ws/team.cfg", "/home/u/work.cfg"]);
    expect(named.loaded).toEqual([
      "/ws/.husky/_",
      "/ws/.husky",
      "/ws/scripts/up.sh",
      "/ws/tools/pdf2txt",
      "/ws/bin/lint",
    ]);
  });
});
