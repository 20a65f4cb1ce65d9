import { readFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuiltinContext } from "../builtin-context.js";
import type { BuiltinRefusal } from "../builtin-refusal.js";
import { runCommand as runSandboxable } from "./run-command.handler.js";

// These cover `sandbox.mode: off`, today's process-group supervision, where pids printed by the
// command are the host's. The sandboxed path is tested with real bwrap in test/sandbox/.
const runCommand: typeof runSandboxable = (args, context, options = {}) =>
  runSandboxable(args, context, { sandbox: { mode: "off" }, ...options });

let ws: string;
let ctx: BuiltinContext;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), "docket-shell-")));
  ctx = { workspace: ws, signal: new AbortController().signal };
});

afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
});

/**
 * Dead means no such process, or a zombie: where PID 1 does not reap orphans (as in many
 * containers), a killed grandchild lingers as a zombie that `kill(pid, 0)` still finds.
 */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}

async function allGone(pids: number[], withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (pids.every(isGone)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return pids.every(isGone);
}

const pidsIn = (text: string) => text.split("\n").filter(Boolean).map(Number);

describe("runCommand", () => {
  it("runs bash in the workspace and reports exit code, stdout and stderr", async () => {
    const result = await runCommand({ command: "pwd; echo oops >&2; exit 3" }, ctx);
    expect(result).toMatchObject({
      exitCode: 3,
      signal: null,
      timedOut: false,
      stdout: `${ws}\n`,
      stderr: "oops\n",
      truncated: false,
    });
    expect(result.text).toBe(
      `Exit code 3 after ${result.durationMs} ms.\n[stdout]\n${ws}\n[stderr]\noops`,
    );
  });

  it("passes the command as one argument, with no input", async () => {
    const result = await runCommand({ command: `printf '%s|' 'a"b$c' "$(cat)"` }, ctx);
    expect(result.stdout).toBe('a"b$c||');
  });

  it("kills the whole process group on timeout, background children included", async () => {
    const result = await runCommand(
      { command: "sleep 1000 & echo $!; sleep 1000 & echo $!; wait", timeout_ms: 400 },
      ctx,
      { killGraceMs: 300 },
    );
    expect(result.timedOut).toBe(true);
    expect(result.text).toContain("Timed out after 400 ms");
    const pids = pidsIn(result.stdout);
    expect(pids).toHaveLength(2);
    expect(await allGone(pids, 2000)).toBe(true);
  });

  it("follows SIGTERM with SIGKILL for children that ignore it", async () => {
    const result = await runCommand(
      { command: "trap '' TERM; sleep 1000 & echo $!; wait; wait", timeout_ms: 300 },
      ctx,
      { killGraceMs: 200 },
    );
    expect(result.timedOut).toBe(true);
    expect(await allGone(pidsIn(result.stdout), 2000)).toBe(true);
  });

  it("stops the group and rejects when the signal aborts", async () => {
    const controller = new AbortController();
    const pids: number[] = [];
    const running = runCommand(
      { command: "sleep 1000 & echo $! > pids.txt; sleep 1000 & echo $! >> pids.txt; wait" },
      { workspace: ws, signal: controller.signal },
      { killGraceMs: 200 },
    );
    setTimeout(() => controller.abort(new Error("user cancelled")), 300);
    await expect(running).rejects.toThrow("user cancelled");
    pids.push(...pidsIn(readFileSync(path.join(ws, "pids.txt"), "utf8")));
    expect(pids).toHaveLength(2);
    expect(await allGone(pids, 2000)).toBe(true);
  });

  it("does not wait for background processes that hold its output, and stops them", async () => {
    const started = Date.now();
    const result = await runCommand({ command: "sleep 1000 & echo $!" }, ctx, { killGraceMs: 200 });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(result.exitCode).toBe(0);
    expect(result.backgroundStopped).toBe(true);
    expect(await allGone(pidsIn(result.stdout), 2000)).toBe(true);
  });

  it("stops background processes that let go of its output too", async () => {
    const result = await runCommand({ command: "sleep 1000 >/dev/null 2>&1 & echo $!" }, ctx, {
      killGraceMs: 200,
    });
    expect(result.exitCode).toBe(0);
    expect(await allGone(pidsIn(result.stdout), 2000)).toBe(true);
  });

  it("refuses a timeout above the configured maximum before running anything", async () => {
    const error = await runCommand({ command: "touch ran.txt", timeout_ms: 5000 }, ctx, {
      maxTimeoutMs: 1000,
    }).catch((caught: unknown) => caught);
    expect((error as BuiltinRefusal).code).toBe("timeout_too_long");
    expect((error as BuiltinRefusal).message).toContain("maximum of 1000 ms");
  });

  it("caps huge output in fixed memory, keeping head and tail", async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    const result = await runCommand({ command: "yes | head -c 200000000; echo; echo END" }, ctx);
    clearInterval(sampler);
    expect(result.stdoutBytes).toBe(200_000_005);
    expect(result.truncated).toBe(true);
    expect(result.stdout.length).toBeLessThan(512 * 1024 + 100);
    expect(result.stdout.startsWith("y\ny\n")).toBe(true);
    expect(result.stdout.endsWith("y\n\nEND\n")).toBe(true);
    expect(result.stdout).toMatch(/\[… \d+ bytes omitted …\]/);
    // 200 MB passed through; what stays is the capped head and tail plus the streams' buffers
    // and the collector's slack (about 40 MB on Node 20, 66 MB seen on Node 24): far below
    // the output, which a copy of would need.
    expect((peak - before) / 1024 / 1024).toBeLessThan(100);
  });

  it("withholds secret-looking variables unless allowed, and applies set", async () => {
    process.env.DOCKET_TEST_API_KEY = "sk-test";
    try {
      const command = "printenv DOCKET_TEST_API_KEY || echo unset; printenv EXTRA || echo none";
      expect((await runCommand({ command }, ctx)).stdout).toBe("unset\nnone\n");
      const allowed = await runCommand({ command }, ctx, {
        env: { allow: ["DOCKET_TEST_API_KEY"], set: { EXTRA: "x" } },
      });
      expect(allowed.stdout).toBe("sk-test\nx\n");
    } finally {
      delete process.env.DOCKET_TEST_API_KEY;
    }
  });

  it("rejects when the shell cannot start, and when already cancelled", async () => {
    await expect(
      runCommand({ command: "true" }, ctx, { shell: "/nonexistent/bash" }),
    ).rejects.toThrow(/ENOENT/);
    const controller = new AbortController();
    controller.abort(new Error("too late"));
    await expect(
      runCommand({ command: "touch never.txt" }, { workspace: ws, signal: controller.signal }),
    ).rejects.toThrow("too late");
  });
});
