import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitGuards } from "./git-guards.js";
import { sweepGit } from "./sweep-git.js";

// Real folders: the state at launch, then what a call left, then the sweep.
function launch(ws: string) {
  const plan = gitGuards({ workspace: ws, roots: [ws], env: {}, home: ws });
  if (plan.status !== "ok") throw new Error(plan.problem);
  return { workspace: ws, roots: [ws], walkLimit: 1_000, ...plan };
}

function repository(): string {
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "docket-sweep-git-")));
  mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
  writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(ws, ".git", "config"), "[core]\n\tbare = false\n");
  return ws;
}

// A repository as `git init` makes it, inside the workspace, after the launch.
function madeByTheCall(ws: string): string {
  const fresh = join(ws, "fresh", ".git");
  mkdirSync(join(fresh, "hooks"), { recursive: true });
  writeFileSync(join(fresh, "HEAD"), "ref: refs/heads/main\n");
  writeFileSync(join(fresh, "hooks", "pre-commit.sample"), "");
  return fresh;
}

describe("sweepGit", () => {
  it("renames aside a guarded path that was missing at launch, and reports it", () => {
    const ws = repository();
    const watch = launch(ws);
    writeFileSync(join(ws, ".git", "commondir"), "../elsewhere\n");
    const notes = sweepGit(watch);
    expect(existsSync(join(ws, ".git", "commondir"))).toBe(false);
    expect(
      readdirSync(join(ws, ".git")).some((name) => name.startsWith("commondir.from-sandbox-")),
    ).toBe(true);
    expect(notes).toEqual([
      expect.objectContaining({ moved: true, text: expect.stringContaining(".git/commondir") }),
    ]);
  });

  it("takes hooks and a configuration beyond git init's from a repository made during the call", () => {
    const ws = repository();
    const watch = launch(ws);
    const fresh = madeByTheCall(ws);
    writeFileSync(join(fresh, "hooks", "post-checkout"), "#!/bin/sh\n");
    writeFileSync(join(fresh, "config"), "[core]\n\tbare = false\n\tfsmonitor = ./run.sh\n");
    const notes = sweepGit(watch).map((note) => note.text);
    expect(existsSync(join(fresh, "hooks"))).toBe(false);
    expect(existsSync(join(fresh, "config"))).toBe(false);
    expect(notes.join("\n")).toContain("sets core.fsmonitor");
  });

  it("leaves a repository made during the call alone when it holds only what git init writes", () => {
    const ws = repository();
    const watch = launch(ws);
    const fresh = madeByTheCall(ws);
    writeFileSync(
      join(fresh, "config"),
      '[core]\n\trepositoryformatversion = 0\n\tbare = false\n[remote "origin"]\n\turl = ../up\n',
    );
    expect(sweepGit(watch)).toEqual([]);
    expect(existsSync(join(fresh, "config"))).toBe(true);
    // Ordinary work in a known repository leaves nothing to sweep either.
    mkdirSync(join(ws, ".git", "objects", "ab"), { recursive: true });
    expect(sweepGit(watch)).toEqual([]);
  });

  it("renames aside a guarded link pointed elsewhere", () => {
    const ws = repository();
    mkdirSync(join(ws, "shared-hooks"));
    mkdirSync(join(ws, "other"));
    const hooks = join(ws, ".git", "hooks");
    rmSync(hooks, { recursive: true });
    symlinkSync("../shared-hooks", hooks);
    const watch = launch(ws);
    unlinkSync(hooks);
    symlinkSync("../other", hooks);
    const notes = sweepGit(watch);
    expect(notes[0]?.text).toContain("pointed elsewhere");
    expect(existsSync(hooks)).toBe(false);
  });
});
