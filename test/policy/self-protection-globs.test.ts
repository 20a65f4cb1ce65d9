import { link, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyVerdict } from "../../src/policy/policy.js";
import type { DocketPolicyEngine } from "../../src/policy/policy-engine.js";
import { allowAllEngine, deniedBySelfProtection } from "./support/allow-all-engine.js";
import { call } from "./support/policy-request.js";

// Globs whose segments reach into docket's user config folder, hard links to files deep inside
// it, and whole-tree copies from above it: each is refused by self-protection, with a policy
// that allows everything else.

let ws: string;
let home: string;
let engine: DocketPolicyEngine;
let own: string;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(join(tmpdir(), "docket-glob-ws-")));
  home = await realpath(await mkdtemp(join(tmpdir(), "docket-glob-home-")));
  own = join(home, ".config", "docket");
  await mkdir(join(own, "cache", "code"), { recursive: true });
  await mkdir(join(own, "cache", "parsed-yaml"), { recursive: true });
  await writeFile(join(own, "policy.yaml"), "policy:\n  rules: []\n");
  await writeFile(join(own, "cache", "code", "abc.bin"), "v8");
  await writeFile(join(own, "cache", "parsed-yaml", "def.json"), "{}");
  await writeFile(join(ws, "evil.bin"), "evil");
  await link(join(own, "cache", "code", "abc.bin"), join(ws, "hl.bin"));
  await link(join(own, "cache", "parsed-yaml", "def.json"), join(ws, "hl.json"));
  engine = await allowAllEngine({ home, workspace: ws });
});

afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const decide = async (name: string, args: Record<string, unknown>) =>
  (await engine.decide(call(name, args))) as PolicyVerdict;
const denied = deniedBySelfProtection;

describe("self-protection sees into docket's folders", () => {
  it("refuses globs whose segments reach below a protected folder, to read or write", async () => {
    for (const command of [
      "cp evil.bin ~/.config/dock?t/cache/code/*.bin",
      "ln -t . ~/.config/dock?t/cache/code/*",
      "ln -t . ~/.config/*/*/code/*",
      "cat ~/.config/dock?t/cache/code/*",
      "mv ~/.config/dock?t/cache ~/oldcache",
      "cp evil.bin ~/.config/docket/cache/c?de/*.bin",
      "cat ~/.config/[d]ocket/cache/parsed-yaml/*",
      "cat ~/.config/**/abc.bin",
      "shopt -s globstar dotglob; cat ~/**/*.bin",
      "cat $HOME/.c*/d*/cache/code/*",
      "cat ~/.config/{docket,x}/cache/code/*",
      "cat ~/.config/{docket/cache,x}/code/*",
      "mv ~/.conf* ~/old",
      "rm -rf ~/.c?nfig",
      'cat "$HOME"/*/docket/cache/code/*',
      "shopt -s dotglob; cat ~/*/docket/cache/code/*",
      "find ~/* -path */docket/*",
    ]) {
      const verdict = await decide("run_command", { command });
      expect(denied(verdict), `${command}: ${verdict.decision} ${verdict.rule}`).toBe(true);
    }
    for (const path of [
      "~/.config/dock?t/cache/code/*.bin",
      `${home}/.config/*/cache/**`,
      "~/*/docket/cache/code/x.bin",
    ]) {
      expect(denied(await decide("read_file", { path })), path).toBe(true);
      expect(denied(await decide("write_file", { path, content: "x" })), path).toBe(true);
    }
  });

  it("leaves globs that cannot reach docket's files to the policy", async () => {
    for (const command of [
      "cat src/*.ts",
      "ls ~/.config/gi?/*",
      "cat ~/.config/docket-other/*",
      "cp evil.bin ~/.cache/*",
      "ls ~/.conf*",
      "cp -r . ../backup",
      "cat */package.json",
      "grep -n x */*.ts",
      "cat ~/*/docket/cache/code/*",
    ]) {
      const verdict = await decide("run_command", { command });
      expect(denied(verdict), `${command}: ${verdict.reason}`).toBe(false);
    }
  });

  it("refuses hard links to files deep inside a protected folder", async () => {
    for (const path of ["hl.bin", "hl.json"]) {
      expect(denied(await decide("write_file", { path, content: "x" })), path).toBe(true);
      expect(denied(await decide("read_file", { path })), path).toBe(true);
    }
    expect(denied(await decide("run_command", { command: "cp evil.bin hl.bin" }))).toBe(true);
    expect(denied(await decide("write_file", { path: "evil.bin", content: "x" }))).toBe(false);
  });

  it("refuses whole-tree copies, archives and searches from above docket's files", async () => {
    for (const command of [
      "cp -r ~ hh",
      "cp -al ~ hh",
      "cp --archive ~/.config hh",
      "tar -cf h.tar ~",
      "tar czf h.tgz $HOME/.config",
      "rsync -a ~/ hh",
      "zip -r h.zip ~",
      "grep -r PRIVATE ~",
      "rg PRIVATE ~/.config",
      "tar -xf x.tar -C ~",
      "cp -r / hh",
      `cp -r ${join(ws, "..")} hh`,
      "cp -r ~/.c* hh",
    ]) {
      const verdict = await decide("run_command", { command });
      expect(denied(verdict), `${command}: ${verdict.decision} ${verdict.rule}`).toBe(true);
    }
    for (const command of ["cp -r src dst", "tar -cf src.tar src", "grep -r x .", "cp ~/a.txt ."]) {
      const verdict = await decide("run_command", { command });
      expect(denied(verdict), `${command}: ${verdict.reason}`).toBe(false);
    }
  });

  it("refuses any pattern built from a protected path by wildcards, to any tool (property)", async () => {
    const names = [".config", "docket", "cache", "code", "abc.bin"];
    const disguise = fc.constantFrom(
      (n: string) => n,
      (n: string) => `${n.slice(0, 2)}*`,
      (n: string) => `?${n.slice(1)}`,
      (n: string) => `[${n[0]}]${n.slice(1)}`,
      () => "*",
      () => "**",
    );
    const form = fc.constantFrom(
      (p: string) => ["run_command", { command: `cat ${p}` }] as const,
      (p: string) => ["run_command", { command: `cp evil.bin ${p}` }] as const,
      (p: string) => ["read_file", { path: p }] as const,
      (p: string) => ["write_file", { path: p, content: "x" }] as const,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(disguise, { minLength: 5, maxLength: 5 }),
        fc.integer({ min: 2, max: 5 }),
        form,
        async (masks, depth, shape) => {
          // bash's `*` does not match `.config` (no dotglob): that segment keeps its dot.
          const parts = names
            .slice(0, depth)
            .map((n, k) =>
              k === 0
                ? masks[k] === masks[1]
                  ? ".c*"
                  : n
                : (masks[k] as (n: string) => string)(n),
            );
          const [tool, args] = shape(`~/${parts.join("/")}`);
          return denied(await decide(tool, args));
        },
      ),
      { numRuns: 120 },
    );
  });
});
