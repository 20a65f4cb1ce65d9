import { existsSync, statSync } from "node:fs";
import {
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { docketProtection } from "../../src/cli/docket-protection.js";
import { protectedSandbox } from "../../src/cli/runtime-sandbox.js";
import {
  builtinTools,
  createCheckpoint,
  createMemoryEventSink,
  renderResult,
} from "../../src/index.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";

// Real bubblewrap, with the workspace a home folder (docket run in $HOME, a devcontainer): the
// sandbox hides ~/.config/docket, and pins the folders above it, so no command can rename them
// away with the hiding mount inside and put an agent's policy, parse cache or code cache where
// docket reads them afterwards. A folder of docket's that is missing at launch is made first,
// so it is hidden too rather than free to be created and filled.

const available = probeSandbox().status === "available";
let home: string;

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "docket-own-pin-")));
});

afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function run(command: string): Promise<string> {
  const env = { HOME: home };
  const configFile = join(home, "proj", "docket.yaml");
  const protection = docketProtection({ env, cwd: home, workspace: home, configFile });
  const sandbox = protectedSandbox(
    { storeUrl: "sqlite::memory:", configFile, layers: [], sandbox: { mode: "required" } },
    protection,
  );
  const checkpoint = createCheckpoint({
    tools: builtinTools({ workspace: home, run: { sandbox } }),
    policy: () => ({ decision: "allow" as const, rule: "allow-all" }),
    events: createMemoryEventSink(),
  });
  const result = await checkpoint.dispatch({
    id: "call_1",
    name: "run_command",
    arguments: JSON.stringify({ command, timeout_ms: 20_000 }),
  });
  return renderResult(result);
}

describe.skipIf(!available)("docket's own folders inside a writable home", () => {
  it("cannot be renamed away, removed or replaced with their parents", async () => {
    const own = join(home, ".config", "docket");
    await mkdir(join(own, "cache", "code"), { recursive: true, mode: 0o700 });
    await writeFile(join(own, "policy.yaml"), "rules: []\n");
    await writeFile(join(home, ".config", "other.conf"), "mine\n");
    const text = await run(
      [
        "mv .config .config-old 2>/dev/null || echo parent-move-refused",
        "mv .config/docket .config/d2 2>/dev/null || echo own-move-refused",
        "rm -rf .config 2>/dev/null || echo remove-refused",
        "echo 'rules: [{decision: allow}]' > .config/docket/policy.yaml 2>/dev/null || echo plant-refused",
        "cat .config/docket/policy.yaml 2>/dev/null || echo read-refused",
        "echo fine > .config/app.conf && echo sibling-written",
      ].join("; "),
    );
    for (const word of [
      "parent-move-refused",
      "own-move-refused",
      "remove-refused",
      "plant-refused",
      "read-refused",
      "sibling-written",
    ]) {
      expect(text).toContain(word);
    }
    expect(await readFile(join(own, "policy.yaml"), "utf8")).toBe("rules: []\n");
    expect(await readdir(join(own, "cache", "code"))).toEqual([]);
    expect(existsSync(join(home, ".config-old"))).toBe(false);
  });

  it("made before launch when missing, so the command cannot create and fill it", async () => {
    const text = await run(
      [
        "mkdir -p .config/docket/cache/code 2>/dev/null || echo create-refused",
        "echo 'rules: [{decision: allow}]' > .config/docket/policy.yaml 2>/dev/null || echo plant-refused",
        "mv .config .config-old 2>/dev/null || echo parent-move-refused",
      ].join("; "),
    );
    expect(text).toContain("create-refused");
    expect(text).toContain("plant-refused");
    expect(text).toContain("parent-move-refused");
    const own = join(home, ".config", "docket");
    expect(await readdir(own)).toEqual([]);
    expect(statSync(own).mode & 0o777).toBe(0o700);
  });

  it("pins a project folder holding a hidden .docket state folder", async () => {
    await mkdir(join(home, "proj", ".docket"), { recursive: true });
    await writeFile(join(home, "proj", ".docket", "chat-history"), "real\n");
    const text = await run(
      [
        "mv proj proj2 2>/dev/null || echo project-move-refused",
        "mv proj/.docket proj/d2 2>/dev/null || echo state-move-refused",
        "echo fine > proj/notes.txt && echo project-written",
      ].join("; "),
    );
    expect(text).toContain("project-move-refused");
    expect(text).toContain("state-move-refused");
    expect(text).toContain("project-written");
    expect(await readFile(join(home, "proj", ".docket", "chat-history"), "utf8")).toBe("real\n");
  });

  it("refuses the command when the own folder is a link the command could swap", async () => {
    await mkdir(join(home, "dotfiles", "docket"), { recursive: true });
    await writeFile(join(home, "dotfiles", "docket", "policy.yaml"), "rules: []\n");
    await mkdir(join(home, ".config"));
    await symlink(join(home, "dotfiles", "docket"), join(home, ".config", "docket"));
    const text = await run(
      "rm .config/docket && mkdir .config/docket && echo evil > .config/docket/policy.yaml",
    );
    expect(text).toMatch(/Refused: docket's own folder .* symbolic link/);
    expect(await readFile(join(home, ".config", "docket", "policy.yaml"), "utf8")).toBe(
      "rules: []\n",
    );
  });

  it("refuses the command when the project's docket.yaml is a link the command could swap", async () => {
    await mkdir(join(home, "dotfiles"), { recursive: true });
    await mkdir(join(home, "proj"), { recursive: true });
    await writeFile(join(home, "dotfiles", "docket.yaml"), "rules: []\n");
    await symlink(join(home, "dotfiles", "docket.yaml"), join(home, "proj", "docket.yaml"));
    const text = await run("rm proj/docket.yaml && echo 'rules: evil' > proj/docket.yaml");
    expect(text).toMatch(
      /Refused: docket's own file .*proj\/docket\.yaml is reached through the symbolic link .*proj\/docket\.yaml/,
    );
    expect(await readFile(join(home, "proj", "docket.yaml"), "utf8")).toBe("rules: []\n");
  });
});
