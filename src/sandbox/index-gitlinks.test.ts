import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { indexGitlinks } from "./index-gitlinks.js";

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "a",
      GIT_AUTHOR_EMAIL: "a@b",
      GIT_COMMITTER_NAME: "a",
      GIT_COMMITTER_EMAIL: "a@b",
    },
  });

// Real indexes written by real git, in each version it writes.
describe("indexGitlinks", () => {
  for (const version of ["2", "3", "4"]) {
    it(`finds every gitlink of a version ${version} index, files around them left out`, () => {
      const ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-gitlinks-")));
      git(ws, "init", "-q");
      git(ws, "commit", "-q", "--allow-empty", "-m", "i");
      const head = git(ws, "rev-parse", "HEAD").trim();
      for (const file of ["a.txt", "node_modules/deep/er/file.js", "zz.txt"]) {
        execFileSync("sh", ["-c", `mkdir -p "$(dirname '${file}')" && echo x > '${file}'`], {
          cwd: ws,
        });
        git(ws, "add", file);
      }
      for (const link of ["node_modules/x", "node_modules/deep/er/y", "vendor/lib"]) {
        git(ws, "update-index", "--add", "--cacheinfo", `160000,${head},${link}`);
      }
      git(ws, "update-index", "--index-version", version);
      expect(indexGitlinks(join(ws, ".git")).sort()).toEqual(
        ["node_modules/deep/er/y", "node_modules/x", "vendor/lib"].sort(),
      );
    });
  }

  it("answers none for a missing or foreign index", () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-gitlinks-")));
    expect(indexGitlinks(join(ws, ".git"))).toEqual([]);
  });
});
