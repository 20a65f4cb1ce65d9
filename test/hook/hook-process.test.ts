import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";

// The hook as a host starts it: a process, the payload on stdin, the answer on stdout or (deny)
// exit 2 with the reason on stderr.
// The installed CLI (the packed package's bundle), installed before the file's tests start.
useInstalledCli();

function runHookProcess(
  args: readonly string[],
  input: string,
  env: NodeJS.ProcessEnv = {},
  cwd?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [installedCliPath(), ...args], {
      env: { ...process.env, ...env },
      cwd,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const payload = JSON.stringify({
  session_id: "proc-1",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "ls" },
  tool_use_id: "p1",
});

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-hook-process-"));
  await writeFile(
    join(dir, "docket.yaml"),
    "policy:\n  rules:\n    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }\n",
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("docket hook as a process", () => {
  it("answers allow on stdout", async () => {
    const result = await runHookProcess(["hook", "claude-code"], payload, {}, dir);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"permissionDecision":"allow"');
  }, 60_000);

  it("denies with exit 2 when docket crashes (a store it cannot open)", async () => {
    const result = await runHookProcess(
      ["hook", "claude-code", "--store", "postgres://docket:secret@127.0.0.1:1/none"],
      payload,
      {},
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toMatch(/denied/);
    expect(result.stderr).not.toContain("secret");
    expect(result.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it("denies with exit 2 when docket does not answer in time", async () => {
    const result = await runHookProcess(
      ["hook", "claude-code"],
      payload,
      { DOCKET_HOOK_TIMEOUT: "1" },
      dir,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("did not answer within 1 ms");
  }, 60_000);

  it("denies with exit 2 an unreadable payload", async () => {
    const result = await runHookProcess(["hook", "codex"], "\u0000garbage", {}, dir);
    expect(result.code).toBe(2);
  }, 60_000);
});
