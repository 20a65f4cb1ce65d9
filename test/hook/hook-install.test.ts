import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostName } from "../../src/hook/host-registry.js";
import { applyRegistration, planRegistration } from "../../src/hook/install-hook.js";
import { runDocket } from "../support/run-docket.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-hook-install-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const command = "docket hook HOST";

async function roundTrip(host: HostName, file: string, original: string) {
  const project = join(dir, host, "project");
  const home = join(dir, host, "home");
  const path = join(host === "codex" ? home : project, file);
  await mkdir(join(path, ".."), { recursive: true });
  if (original !== "") await writeFile(path, original);
  const options = { host, command, project, home };
  const install = await planRegistration("install", options);
  expect(install.diff.some((line) => line.startsWith("+"))).toBe(true);
  await applyRegistration(install);
  const installed = await readFile(path, "utf8");
  // Installing again changes nothing.
  expect((await planRegistration("install", options)).after).toBe(installed);
  await applyRegistration(await planRegistration("uninstall", options));
  return { path, installed };
}

describe("docket hook install and uninstall", () => {
  it("Claude Code: a matcher for every tool with onFailure block, and uninstall keeps the rest", async () => {
    const theirs = {
      permissions: { allow: ["Read"] },
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./mine.sh" }] }],
      },
    };
    const { path, installed } = await roundTrip(
      "claude-code",
      ".claude/settings.json",
      JSON.stringify(theirs),
    );
    const settings = JSON.parse(installed);
    expect(settings.permissions).toEqual(theirs.permissions);
    expect(settings.hooks.PreToolUse).toEqual([
      theirs.hooks.PreToolUse[0],
      { matcher: "*", hooks: [{ type: "command", command, timeout: 180, onFailure: "block" }] },
    ]);
    expect(settings.hooks.PostToolUse[0].matcher).toBe("*");
    expect(settings.hooks.PostToolUseFailure[0].hooks[0].command).toBe(command);
    expect(settings.hooks.PermissionRequest[0].hooks[0].command).toBe(command);
    // The events that settle what its prompt refused: never blocking, in the background but
    // at the session's end.
    for (const event of ["PostToolBatch", "UserPromptSubmit"]) {
      expect(settings.hooks[event], event).toEqual([
        { matcher: "*", hooks: [{ type: "command", command, timeout: 180, async: true }] },
      ]);
    }
    expect(settings.hooks.SessionEnd[0].hooks).toEqual([
      { type: "command", command, timeout: 180 },
    ]);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual(theirs);
  });

  it("gemini-cli: BeforeTool and AfterTool for every tool", async () => {
    const { path, installed } = await roundTrip("gemini-cli", ".gemini/settings.json", "");
    const settings = JSON.parse(installed);
    expect(settings.hooks.BeforeTool[0]).toEqual({
      matcher: ".*",
      hooks: [{ type: "command", name: "docket", command, timeout: 180_000 }],
    });
    for (const event of ["BeforeAgent", "AfterAgent", "SessionEnd"]) {
      expect(settings.hooks[event]?.[0]?.hooks?.[0]?.command, event).toBe(command);
    }
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual({});
  });

  it("Codex CLI: a marked block in ~/.codex/config.toml, removed exactly", async () => {
    const theirs = 'model = "gpt-5"\n\n[sandbox]\nmode = "workspace-write"\n';
    const { path, installed } = await roundTrip("codex", ".codex/config.toml", theirs);
    expect(installed).toContain("[[hooks.PreToolUse.hooks]]");
    expect(installed).toContain(`command = "${command}"`);
    expect(installed).toContain(theirs.trimEnd());
    // Codex's own sandbox, which docket cannot replace with its own: set where the user set none.
    expect(installed.startsWith("# >>> docket sandbox")).toBe(true);
    expect(installed).toMatch(/^sandbox_mode = "workspace-write"$/m);
    expect(installed).toMatch(/^\[shell_environment_policy\]\ninherit = "core"$/m);
    expect(await readFile(path, "utf8")).toBe(theirs);
  });

  it("Codex CLI: a sandbox the user set is left as it is", async () => {
    const theirs =
      'sandbox_mode = "read-only"\nmodel = "gpt-5"\n\n[shell_environment_policy]\ninherit = "all"\n';
    const { path, installed } = await roundTrip("codex", ".codex/config.toml", theirs);
    expect(installed.startsWith(theirs.trimEnd())).toBe(true);
    expect(installed.match(/sandbox_mode/g)).toHaveLength(1);
    expect(installed.match(/\[shell_environment_policy\]/g)).toHaveLength(1);
    expect(await readFile(path, "utf8")).toBe(theirs);
  });

  it("opencode: the plugin file, which throws unless docket allows, removed on uninstall", async () => {
    const { path, installed } = await roundTrip("opencode", ".opencode/plugin/docket.js", "");
    expect(installed).toContain('"tool.execute.before"');
    expect(installed).toContain('if (answer.decision !== "allow") throw');
    expect(existsSync(path)).toBe(false);
  });

  it("the command shows the diff and writes only with --yes (or a yes at a terminal)", async () => {
    const project = join(dir, "cli-project");
    await mkdir(project, { recursive: true });
    const refused = await runDocket(["hook", "install", "claude-code", "--project", project]);
    expect(refused.stderr).toContain("Nothing was written");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("+++");
    expect(existsSync(join(project, ".claude", "settings.json"))).toBe(false);
    const written = await runDocket([
      "hook",
      "install",
      "claude-code",
      "--project",
      project,
      "--yes",
    ]);
    expect(written.code).toBe(0);
    const settings = JSON.parse(await readFile(join(project, ".claude", "settings.json"), "utf8"));
    // The daemon client by default: the daemon when it runs, this process when it does not.
    expect(settings.hooks.PreToolUse[0].hooks[0].command).toMatch(
      / hook claude-code --prefer-daemon$/,
    );
    // Another form replaces docket's registration, never adds a second hook beside it.
    const inProcess = ["hook", "install", "claude-code", "--project", project, "--yes"];
    expect((await runDocket([...inProcess, "--no-daemon"])).code).toBe(0);
    const replaced = JSON.parse(await readFile(join(project, ".claude", "settings.json"), "utf8"));
    expect(replaced.hooks.PreToolUse).toHaveLength(1);
    expect(replaced.hooks.PreToolUse[0].hooks[0].command).toMatch(/ hook claude-code$/);
    expect(
      (await runDocket(["hook", "uninstall", "claude-code", "--project", project, "--yes"])).code,
    ).toBe(0);
    const removed = JSON.parse(await readFile(join(project, ".claude", "settings.json"), "utf8"));
    expect(removed.hooks ?? {}).toEqual({});
  }, 60_000);
});
