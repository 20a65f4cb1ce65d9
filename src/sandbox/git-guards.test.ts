import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitGuards } from "./git-guards.js";

function workspace(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "docket-git-guards-")));
}

function guardsOf(ws: string, home = ws) {
  const plan = gitGuards({ workspace: ws, roots: [ws], env: {}, home });
  if (plan.status !== "ok") throw new Error(plan.problem);
  return plan;
}

describe("gitGuards", () => {
  it("keeps every guarded entry of every repository read-only, nested and submodules included", () => {
    const ws = workspace();
    mkdirSync(join(ws, ".git", "hooks"), { recursive: true });
    writeFileSync(join(ws, ".git", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(join(ws, ".git", "config"), "");
    mkdirSync(join(ws, ".git", "modules", "lib", "hooks"), { recursive: true });
    writeFileSync(join(ws, ".git", "modules", "lib", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(ws, "lib"));
    writeFileSync(join(ws, "lib", ".git"), "gitdir: ../.git/modules/lib\n");
    mkdirSync(join(ws, "a", "b", ".git", "hooks"), { recursive: true });
    const guards = guardsOf(ws);
    expect(guards.pinned.sort()).toEqual(
      [join(ws, ".git"), join(ws, ".git", "modules", "lib"), join(ws, "a", "b", ".git")].sort(),
    );
    expect(guards.readOnly.sort()).toEqual(
      [
        join(ws, ".git", "config"),
        join(ws, ".git", "hooks"),
        join(ws, ".git", "modules", "lib", "hooks"),
        join(ws, "a", "b", ".git", "hooks"),
        join(ws, "lib", ".git"),
      ].sort(),
    );
    // What is missing now is swept after the call: a commondir would load another configuration.
    expect(guards.absent).toContain(join(ws, ".git", "commondir"));
    expect(guards.absent).toContain(join(ws, "a", "b", ".git", "config"));
  });

  it("follows what a configuration names into the workspace: includes, hooks path, programs", () => {
    const ws = workspace();
    mkdirSync(join(ws, ".git"));
    mkdirSync(join(ws, ".husky", "_"), { recursive: true });
    mkdirSync(join(ws, "tools"));
    writeFileSync(join(ws, "tools", "clean.sh"), "");
    writeFileSync(join(ws, "team.gitconfig"), '[alias]\n\tfix = "!./tools/fix.sh --all"\n');
    writeFileSync(
      join(ws, ".git", "config"),
      '[core]\n\thooksPath = .husky/_\n\tfsmonitor = false\n[include]\n\tpath = ../team.gitconfig\n[filter "x"]\n\tclean = sh tools/clean.sh\n',
    );
    const guards = guardsOf(ws);
    expect(guards.readOnly).toEqual(
      expect.arrayContaining([
        join(ws, ".husky", "_"),
        join(ws, ".husky"),
        join(ws, "team.gitconfig"),
        join(ws, "tools", "clean.sh"),
      ]),
    );
    // Named but missing: swept if the call makes it.
    expect(guards.absent).toContain(join(ws, "tools", "fix.sh"));
  });

  it("reads the user's own configuration too, and notes a guarded link", () => {
    const ws = workspace();
    const home = workspace();
    mkdirSync(join(ws, ".git"));
    mkdirSync(join(ws, "hooks-src"));
    symlinkSync("../hooks-src", join(ws, ".git", "hooks"));
    writeFileSync(
      join(home, ".gitconfig"),
      `[includeIf "gitdir:${ws}/"]\n\tpath = ${ws}/shared.cfg\n`,
    );
    writeFileSync(join(ws, "shared.cfg"), "");
    const guards = guardsOf(ws, home);
    expect(guards.readOnly).toEqual(
      expect.arrayContaining([join(ws, "shared.cfg"), join(ws, "hooks-src")]),
    );
    expect(guards.links).toEqual([{ path: join(ws, ".git", "hooks"), target: "../hooks-src" }]);
  });

  it("finds nothing in a workspace without repositories, and refuses past the walk limit", () => {
    const ws = workspace();
    expect(guardsOf(ws)).toMatchObject({ pinned: [], readOnly: [], absent: [] });
    for (let i = 0; i < 5; i++) mkdirSync(join(ws, `d${i}`));
    expect(gitGuards({ workspace: ws, roots: [ws], walkLimit: 3, env: {} }).status).toBe(
      "too_many",
    );
  });
});
