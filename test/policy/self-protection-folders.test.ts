// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell syntax, not templates
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PolicyVerdict } from "../../src/policy/policy.js";
import type { DocketPolicyEngine } from "../../src/policy/policy-engine.js";
import { allowAllEngine, deniedBySelfProtection } from "./support/allow-all-engine.js";
import { call } from "./support/policy-request.js";

// Folder changes (`cd ~`, `cd -`, `env -C`), variables docket cannot expand and archives
// unpacked above docket's user config folder: each reaches it and is refused by
// self-protection, with a policy that allows everything else. The workspace sits in the home
// folder, so `cd ..` is the home folder.

let home: string;
let ws: string;
let engine: DocketPolicyEngine;

beforeAll(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "docket-folders-home-")));
  ws = join(home, "ws");
  const own = join(home, ".config", "docket");
  await mkdir(join(own, "cache", "code"), { recursive: true });
  await mkdir(join(ws, "src"), { recursive: true });
  await writeFile(join(own, "policy.yaml"), "policy:\n  rules: []\n");
  engine = await allowAllEngine({ home, workspace: ws });
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const run = async (command: string) =>
  (await engine.decide(call("run_command", { command }))) as PolicyVerdict;
const denied = deniedBySelfProtection;

describe("self-protection follows the folders a command runs in", () => {
  it.each([
    "cd ~ && cp x .config/docket/cache/code/foo",
    "cd; cp x .config/docket/policy.yaml",
    "pushd ~; cp x .config/docket/policy.yaml",
    "cd $HOME && cp x .config/docket/policy.yaml",
    "cd ${HOME} && cp x .config/docket/policy.yaml",
    "cd .. && cp x .config/docket/policy.yaml",
    "cd ~/.config && cp x docket/policy.yaml",
    "env -C ~ cp x .config/docket/policy.yaml",
    "env --chdir=$HOME cp x .config/docket/policy.yaml",
    'sh -c "cd; cp x .config/docket/policy.yaml"',
    "cd - && cp x .config/docket/policy.yaml",
    "cd - && cp x docket/policy.yaml",
    'cd "$DIR" && cp x docket/cache/code/foo',
    "cd $(echo ~) && cp x .config/docket/policy.yaml",
    "popd; cp x .config/docket/policy.yaml",
    "cd ~/.config/docket && cp x policy.yaml",
    "cd ~; cd .config; cp x docket/cache/code/foo",
    "(cd ~ && cp x .config/docket/policy.yaml)",
    "cd ~root && cp x docket/policy.yaml",
    "cd ~- && cp x .config/docket/policy.yaml",
    "HOME=~/.config; cp x ~/docket/policy.yaml",
    "export HOME=$HOME/.config; cd; cp x docket/policy.yaml",
    "CDPATH=~ cd .config && cp x docket/policy.yaml",
    "shopt -s cdable_vars; cd CFG && cp x docket/policy.yaml",
    "cd ~ && cp x .c*/docket/policy.yaml",
  ])("refuses %s", async (command) => {
    expect(denied(await run(command))).toBe(true);
  });

  it.each([
    "cp x $XDG_CONFIG_HOME/docket/policy.yaml",
    "cp x ${XDG_CONFIG_HOME}/docket/policy.yaml",
    "cp x $(echo ~/.con)fig/docket/policy.yaml",
    "cp x ~/$(echo .con)fig/docket/policy.yaml",
    "cp x /home/$USER/../../$HOME_DIR/.config/docket/policy.yaml",
    "cp x $CFG/docket/cache/code/foo",
  ])("refuses a variable docket cannot expand in %s", async (command) => {
    expect(denied(await run(command))).toBe(true);
  });

  it.each([
    "cd ~ && tar -xf ws/evil.tar",
    "cd ~ && tar xf ws/evil.tar",
    "tar -C ~ -xf evil.tar",
    "cd ~ && unzip ws/evil.zip",
    "unzip evil.zip -d ~",
    "cd ~ && cpio -i < ws/evil.cpio",
    "git -C ~ checkout -- .",
    "cd - && tar -xf evil.tar",
    "tar -xPf evil.tar",
    "tar --absolute-names -xf evil.tar",
    "cpio -i < evil.cpio",
    "unzip -: evil.zip",
    "tar -xf evil.tar -C $DIR",
  ])("refuses unpacking above docket's folder: %s", async (command) => {
    expect(denied(await run(command))).toBe(true);
  });

  it("refuses patterns once shopt, set or eval may switch dotglob on", async () => {
    for (const command of [
      "shopt -s dotglo?; wc -c ~/*/docket/cache/code/*",
      "set -o posix; cat ~/*/docket/policy.yaml",
      "eval x; cat ~/*/docket/policy.yaml",
      ". ./x; cat ~/*/docket/policy.yaml",
      "source x; cat ~/*/docket/policy.yaml",
      "x=sho; ${x}pt -s dotglo?; cat ~/*/docket/policy.yaml",
    ]) {
      expect(denied(await run(command)), command).toBe(true);
    }
  });

  it.each([
    "cat */package.json",
    "ls ~",
    "ls ~/.config",
    "grep -r foo src",
    "tar -czf out.tgz dist",
    "tar -xf in.tar",
    "cp -r src /tmp/x",
    "cp -r . ../backup",
    "cd src && ls",
    "cd .. && ls",
    "cd /tmp && cp a b",
    "cd src && tar -xf ../in.tar",
    "cp $SRC/a.txt $DEST/b.txt",
    "cd - && cp a b",
    "echo $HOME",
    "cd ~ && ls",
    "cd && ls -la",
    "cd - && ls",
    'cd "$DIR" && make',
    "git -C src status",
    "git checkout main",
    "cd src && git checkout -- .",
    "unzip in.zip",
    "cd ~/ws && tar -xf in.tar",
    "cpio -i --no-absolute-filenames < in.cpio",
    "unzip in.zip -d out",
    "tar -xf in.tar --directory=/tmp/out",
    "cd src && cd .. && git checkout -b topic",
  ])("leaves %s to the policy", async (command) => {
    expect(denied(await run(command))).toBe(false);
  });

  it("refuses any home-reaching folder change followed by an own path below it", async () => {
    const prefix = fc.constantFrom(
      "cd; ",
      "cd ~ && ",
      "cd $HOME; ",
      "cd ${HOME} && ",
      "pushd ~ >/dev/null; ",
      "cd .. && ",
      "cd - && ",
      'cd "$X" && ',
      "cd /tmp; cd ~; ",
    );
    const tail = fc.constantFrom(
      ".config/docket/policy.yaml",
      ".config/docket/cache/code/x.bin",
      ".config/docket/cache",
    );
    const program = fc.constantFrom("cp x", "mv x", "cat", "rm -f", "tee", "ln -f x");
    await fc.assert(
      fc.asyncProperty(prefix, program, tail, async (p, prog, t) => {
        expect(denied(await run(`${p}${prog} ${t}`))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
