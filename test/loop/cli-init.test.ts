import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { INITIAL_CONFIG, NEXT_COMMANDS } from "../../src/cli/commands/init-command.js";
import { loadConfig } from "../../src/config/load-config.js";
import { readRuntimeConfig } from "../../src/config/runtime-config.js";
import { runDocketIn } from "./support/run-child.js";
import { tempDir } from "./support/temp-dir.js";

describe("docket init", () => {
  it("writes a docket.yaml whose policy denies rm -rf /, and never overwrites without --force", async () => {
    const cwd = await tempDir();
    const file = join(cwd, "docket.yaml");

    const init = await runDocketIn(cwd, ["init"]);
    expect(init.code, init.stderr).toBe(0);
    expect(await readFile(file, "utf8")).toBe(INITIAL_CONFIG);
    // The shell is sandboxed where it can be, and asks a person first where it cannot.
    const runtime = readRuntimeConfig(loadConfig(file));
    expect(runtime.sandbox).toMatchObject({ mode: "auto", network: "none" });
    // Writes that follow untrusted content are asked, for the whole session.
    expect(runtime.taint).toEqual({ scope: "session", writes: "ask" });

    const edited = `${INITIAL_CONFIG}# my own notes\n`;
    await writeFile(file, edited);
    const [check, again] = await Promise.all([
      runDocketIn(cwd, [
        "policy",
        "check",
        "run_command",
        '{"command":"rm -rf /"}',
        "--config",
        "docket.yaml",
        "--json",
      ]),
      runDocketIn(cwd, ["init"]),
    ]);
    expect(check.code, check.stderr).toBe(1);
    expect(JSON.parse(check.stdout)).toMatchObject({ decision: "deny", layer: "project" });

    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("docket.yaml exists already; pass --force to overwrite it.");
    expect(await readFile(file, "utf8")).toBe(edited);

    const forced = await runDocketIn(cwd, ["init", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(file, "utf8")).toBe(INITIAL_CONFIG);
  });

  it("adds .docket/ to .gitignore: creates it, appends once, never duplicates", async () => {
    const fresh = await tempDir();
    const first = await runDocketIn(fresh, ["init"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain("created .gitignore with .docket/");
    expect(await readFile(join(fresh, ".gitignore"), "utf8")).toMatch(/^#.*\n\.docket\/\n$/);

    const existing = await tempDir();
    await writeFile(join(existing, ".gitignore"), "node_modules\ndist");
    await runDocketIn(existing, ["init"]);
    const again = await runDocketIn(existing, ["init", "--force"]);
    expect(again.stdout).toContain(".gitignore already ignores .docket/");
    const text = await readFile(join(existing, ".gitignore"), "utf8");
    expect(text.startsWith("node_modules\ndist\n")).toBe(true);
    expect(text.split("\n").filter((line) => line === ".docket/")).toHaveLength(1);
  });

  it("names every rule, says in each reason what happens, and prints three commands that work", async () => {
    const cwd = await tempDir();
    const init = await runDocketIn(cwd, ["init"]);
    const rules = loadConfig(join(cwd, "docket.yaml"))?.policy?.rules ?? [];
    expect(rules.map((r) => [r.id, r.decision])).toEqual([
      ["no-destructive-shell", "deny"],
      ["safe-shell", "allow"],
      ["no-secrets", "deny"],
      ["no-docket-state", "deny"],
      ["ask-workspace-hooks", "ask"],
      ["ask-web", "ask"],
    ]);
    const words = { deny: /^denied: /, allow: /^allowed /, ask: /^asks a person first: / };
    for (const rule of rules)
      expect(rule.reason).toMatch(words[rule.decision as keyof typeof words]);

    const lines = init.stdout.split("\n");
    const next = lines.slice(lines.indexOf("Next, try:") + 1, lines.indexOf("Next, try:") + 4);
    expect(next.map((line) => line.trim().split("  #")[0]?.trim())).toEqual(
      NEXT_COMMANDS.map(([command]) => command),
    );
    // The first two run here as printed (the third needs a model key).
    const doctor = await runDocketIn(cwd, ["doctor"]);
    expect(doctor.stderr).not.toMatch(/error: unknown command/);
    const check = await runDocketIn(cwd, [
      "policy",
      "check",
      "run_command",
      '{"command":"rm -rf /"}',
    ]);
    expect(check.stdout).toContain(
      "deny by rule no-destructive-shell (layer project): denied: deleting, publishing and downloading are not allowed here",
    );
  });
});
