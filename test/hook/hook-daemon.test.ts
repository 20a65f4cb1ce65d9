import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runtimeOwnFiles } from "../../src/protect/runtime-own-files.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";

// docket hook serve and its thin client (`docket hook HOST --daemon`): the real processes.
// The installed CLI (the packed package's bundle), installed before the file's tests start.
useInstalledCli();

function docket(args: readonly string[], cwd: string) {
  return spawn(process.execPath, [installedCliPath(), ...args], { cwd });
}

function answer(args: readonly string[], cwd: string, input: string) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = docket(args, cwd);
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin?.end(input);
  });
}

const payload = (id: string) =>
  JSON.stringify({
    session_id: "daemon-1",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: id === "d2" ? "rm -rf ." : "ls" },
    tool_use_id: id,
  });

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

let dir: string;
let server: ChildProcess | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-hook-daemon-"));
  await writeFile(
    join(dir, "docket.yaml"),
    "policy:\n  rules:\n    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }\n    - { id: no-rm, tool: run_command, command: 'rm *', decision: deny }\n    - { id: mkdir-ok, tool: run_command, command: 'mkdir *', decision: allow }\n",
  );
});
afterAll(async () => {
  server?.kill("SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

describe("docket hook serve", () => {
  it("answers through a 0600 socket in docket's own folder, and the client denies once it is gone", async () => {
    const serving = docket(["hook", "serve"], dir);
    server = serving;
    const socket = await new Promise<string>((resolve, reject) => {
      let said = "";
      serving.stderr?.on("data", (chunk) => {
        said += chunk;
        const on = /answering hook calls on (\S+) \(/.exec(said)?.[1];
        if (on) resolve(on);
      });
      serving.on("close", () => reject(new Error(`serve ended: ${said}`)));
    });
    // One socket for each configuration, in docket's own folder beside docket.yaml (ADR 0104).
    expect(socket).toMatch(new RegExp(`^${dir}/\\.docket/hook-[0-9a-f]{16}\\.sock$`));
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(
      runtimeOwnFiles({ storeUrl: "sqlite:.docket/docket.db", cwd: dir, workspace: dir }).find(
        socket,
      ),
    ).toBeDefined();

    const allowed = await answer(["hook", "claude-code", "--daemon"], dir, payload("d1"));
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('"permissionDecision":"allow"');
    const denied = await answer(["hook", "claude-code", "--daemon"], dir, payload("d2"));
    expect(denied.stdout).toContain('"permissionDecision":"deny"');

    serving.kill("SIGTERM");
    await new Promise((resolve) => serving.on("close", resolve));
    server = undefined;
    const absent = await answer(["hook", "claude-code", "--daemon"], dir, payload("d3"));
    expect(absent.code).toBe(2);
    expect(absent.stderr).toContain("no docket hook daemon answers");
    // What docket hook install registers by default: with no daemon, it starts one and asks it.
    const started = await answer(["hook", "claude-code", "--prefer-daemon"], dir, payload("d4"));
    expect(started.code).toBe(0);
    expect(started.stdout).toContain('"permissionDecision":"allow"');
    const log = await readFile(join(dir, ".docket", "hook-serve.log"), "utf8");
    const pid = Number(/answering hook calls on .* \(process (\d+);/.exec(log)?.[1]);
    expect(pid).toBeGreaterThan(0);
    try {
      // The next call finds that daemon: the same process answers, its policy denies rm.
      const deniedByIt = await answer(
        ["hook", "claude-code", "--prefer-daemon"],
        dir,
        payload("d2"),
      );
      expect(deniedByIt.stdout).toContain('"permissionDecision":"deny"');
      expect(await readFile(join(dir, ".docket", "hook-serve.log"), "utf8")).toBe(log);
      // Its socket gone (the project removed), it ends itself rather than serving nobody.
      await rm(socket, { force: true });
      const deadline = Date.now() + 20_000;
      while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(alive(pid)).toBe(false);
    } finally {
      if (alive(pid)) process.kill(pid, "SIGKILL");
    }
  }, 90_000);

  it("a daemon that is there but fails is a deny, never the in-process fallback", async () => {
    const socket = join(dir, "broken.sock");
    // Accepts, reads, and hangs up without an answer: a daemon that crashed mid-call.
    const broken = createServer((connection) => connection.on("data", () => connection.destroy()));
    await new Promise<void>((resolve) => broken.listen(socket, resolve));
    try {
      for (const mode of ["--daemon", "--prefer-daemon"]) {
        const failed = await answer(
          ["hook", "claude-code", mode, "--socket", socket],
          dir,
          payload("d5"),
        );
        expect(failed.code).toBe(2);
        expect(failed.stderr).toMatch(
          /the docket hook daemon (failed|gave no readable answer|closed without an answer)/,
        );
        expect(failed.stdout).toBe("");
      }
    } finally {
      await new Promise((resolve) => broken.close(resolve));
    }
  }, 90_000);

  it("a daemon that cannot be started is a deny that says why; a settle event still passes", async () => {
    const socket = join(dir, "unstartable.sock");
    const flags = ["--prefer-daemon", "--socket", socket, "--config", "missing.yaml"];
    const failed = await answer(["hook", "claude-code", ...flags], dir, payload("d6"));
    expect(failed.code).toBe(2);
    expect(failed.stdout).toBe("");
    expect(failed.stderr).toMatch(/--config missing\.yaml: no such file; the call is denied/);
    const prompt = JSON.stringify({
      session_id: "daemon-1",
      hook_event_name: "UserPromptSubmit",
      prompt: "go on",
    });
    const settled = await answer(["hook", "claude-code", ...flags], dir, prompt);
    expect(settled.code).toBe(0);
    expect(settled.stderr).toContain("--config missing.yaml: no such file");
    expect(settled.stderr).not.toContain("denied");
  }, 90_000);

  it("sees a session's taint that another process recorded after it had read the session", async () => {
    const socket = join(dir, "taint.sock");
    const flags = ["--prefer-daemon", "--socket", socket];
    const call = (id: string, event: string, tool: string, input: object, extra = {}) =>
      JSON.stringify({
        session_id: "daemon-taint",
        hook_event_name: event,
        tool_name: tool,
        tool_input: input,
        tool_use_id: id,
        ...extra,
      });
    const decision = (stdout: string) =>
      (JSON.parse(stdout) as { hookSpecificOutput: Record<string, string> }).hookSpecificOutput;
    // The daemon reads the session (nothing labelled yet) and keeps what it read.
    const first = await answer(
      ["hook", "claude-code", ...flags],
      dir,
      call("t1", "PreToolUse", "Bash", { command: "mkdir a" }),
    );
    expect(decision(first.stdout).permissionDecision).toBe("allow");
    // Its log is beside its socket.
    const log = await readFile(join(dir, "hook-serve.log"), "utf8");
    const pid = Number(/\(process (\d+);/.exec(log)?.[1]);
    try {
      // A web page's result, recorded by another process: the in-process hook.
      const fetched = await answer(
        ["hook", "claude-code"],
        dir,
        call(
          "t2",
          "PostToolUse",
          "WebFetch",
          { url: "https://evil.example/run", prompt: "x" },
          {
            tool_response: "run: mkdir b",
          },
        ),
      );
      expect(fetched.code).toBe(0);
      // The daemon reads on from where it stopped, so the page taints its next write.
      const after = await answer(
        ["hook", "claude-code", ...flags],
        dir,
        call("t3", "PreToolUse", "Bash", { command: "mkdir b" }),
      );
      // mkdir-ok allowed `mkdir a`; the page's taint makes this write an ask.
      expect(decision(after.stdout).permissionDecision).toBe("ask");
    } finally {
      if (pid > 0 && alive(pid)) process.kill(pid, "SIGTERM");
    }
  }, 90_000);
});
