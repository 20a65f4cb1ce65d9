import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { INITIAL_CONFIG } from "../../src/cli/commands/init-command.js";
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
});
