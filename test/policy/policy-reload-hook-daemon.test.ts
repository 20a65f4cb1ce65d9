import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

// The hook daemon is the other long-running entry point that decides calls: it reloads too.

let server: ChildProcess | undefined;
let dir: string | undefined;
afterAll(async () => {
  server?.kill("SIGKILL");
  if (dir) await rm(dir, { recursive: true, force: true });
});

function answer(cwd: string, input: string) {
  return new Promise<string>((resolve) => {
    const child = spawn(process.execPath, [installedCliPath(), "hook", "claude-code", "--daemon"], {
      cwd,
    });
    let stdout = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.on("close", () => resolve(stdout));
    child.stdin?.end(input);
  });
}

const rules = (decision: string) =>
  `policy:\n  rules:\n    - { id: ls-rule, tool: run_command, command: 'ls *', decision: ${decision} }\n`;

describe("docket hook serve", () => {
  it("answers the next hook call with the changed rule, and keeps it when the file breaks", async () => {
    dir = await mkdtemp(join(tmpdir(), "docket-reload-daemon-"));
    const cwd = dir;
    await writeFile(join(cwd, "docket.yaml"), rules("allow"));
    const serving = spawn(process.execPath, [installedCliPath(), "hook", "serve"], { cwd });
    server = serving;
    let said = "";
    serving.stderr?.on("data", (chunk) => {
      said += chunk;
    });
    const until = async (test: () => boolean) => {
      const end = Date.now() + 30_000;
      while (!test() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
    };
    await until(() => said.includes("answering hook calls"));
    let n = 0;
    const ask = () =>
      answer(
        cwd,
        JSON.stringify({
          session_id: "reload-1",
          hook_event_name: "PreToolUse",
          tool_name: "Bash",
          tool_input: { command: "ls" },
          tool_use_id: `t${++n}`,
        }),
      );
    expect(await ask()).toContain('"permissionDecision":"allow"');

    await writeFile(join(cwd, "docket.yaml"), rules("deny"));
    await until(() => said.includes("policy reloaded"));
    expect(await ask()).toContain('"permissionDecision":"deny"');

    await writeFile(join(cwd, "docket.yaml"), rules("sometimes"));
    await until(() => said.includes("did not load"));
    expect(said).toContain("the old policy stays in force");
    expect(await ask()).toContain('"permissionDecision":"deny"');
  }, 180_000);
});
