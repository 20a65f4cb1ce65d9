import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gitTreeRewrite } from "./git-tree-rewrite.js";

describe("gitTreeRewrite", () => {
  it("finds the subcommands that rewrite the work tree, and leaves reads and new branches", () => {
    for (const command of [
      "git checkout -- .",
      "git checkout main",
      "git switch main",
      "git restore .claude",
      "git reset --hard HEAD~1",
      "git stash",
      "git stash pop",
      "git clean -fdx",
      "git -C /work checkout .",
      "/usr/bin/git checkout main",
      "env GIT_DIR=x git checkout main",
      "bash -c 'git checkout main'",
      "ls; g'i't checkout main",
      "true && git checkout -b x -- .",
      "git pull",
      "git pull --rebase origin main",
      "git merge feature",
      "git rebase main",
      "git cherry-pick abc123",
      "git revert HEAD",
      "git am < series.patch",
      "git apply fix.patch",
      "git read-tree -u -m HEAD",
      "git checkout-index -a -f",
      "git bisect start",
      "git sparse-checkout set src",
      "git submodule update --init",
      "git -c core.hooksPath=x pull",
      "bash -c 'git fetch && git merge FETCH_HEAD'",
    ]) {
      expect(gitTreeRewrite(command), command).toMatch(/^git /);
    }
    for (const command of [
      "git status",
      "git log --oneline",
      "git diff",
      "git checkout -b feature",
      "git switch -c feature",
      "git reset HEAD file.ts",
      "git stash list",
      "git add . && git commit -m checkout",
      "echo digit checkout",
      "git fetch origin",
      "git apply --check fix.patch",
      "git bisect log",
      "git sparse-checkout list",
      "git log --merges",
      "git read-tree HEAD",
    ]) {
      expect(gitTreeRewrite(command), command).toBeUndefined();
    }
  });

  it("finds a rewrite wherever it sits among other commands", () => {
    const rewrite = fc.constantFrom(
      "git checkout .",
      "git stash",
      "git reset --hard",
      "git clean -f",
      "git pull",
      "git merge x",
      "git rebase x",
    );
    const other = fc.constantFrom("ls", "npm test", "git status", "echo hi", "mkdir x");
    const join = fc.constantFrom("; ", " && ", " || ", " | ", "\n");
    fc.assert(
      fc.property(
        fc.array(other, { maxLength: 4 }),
        rewrite,
        fc.array(other, { maxLength: 4 }),
        join,
        (before, it, after, sep) => {
          const command = [...before, it, ...after].join(sep);
          expect(gitTreeRewrite(command)).toMatch(
            /^git (checkout|stash|reset|clean|pull|merge|rebase)$/,
          );
        },
      ),
    );
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const found = gitTreeRewrite(text);
        expect(found === undefined || found.startsWith("git ")).toBe(true);
      }),
    );
  });
});
