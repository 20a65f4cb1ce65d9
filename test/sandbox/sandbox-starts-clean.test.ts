import { spawn } from "node:child_process";
import { openSync, readFileSync } from "node:fs";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import type { SandboxSettings } from "../../src/sandbox/sandbox-settings.js";
import { runInSandbox } from "../support/run-in-sandbox.js";

// Real bubblewrap: the sandbox starts with nothing but stdin, stdout and stderr, and what it
// keeps in memory (files in /tmp, /dev/shm) counts against its memory limit.
const available = probeSandbox().status === "available";
const index = fileURLToPath(new URL("../../src/index.ts", import.meta.url));
const tsx = import.meta.resolve("tsx");

let workspace: string;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-clean-")));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const run = (command: string, sandbox: SandboxSettings = {}, timeoutMs = 20_000) =>
  runInSandbox(workspace, command, { sandbox, timeoutMs });

describe.skipIf(!available)("the sandbox starts clean", () => {
  it("keeps descriptors docket inherited from its parent out of the command", async () => {
    // A parent (docket's host) hands docket writable files on fd 3 and fd 40, without
    // close-on-exec, as a shell's `exec 40>file` or a supervisor would. Node itself marks its
    // low descriptors close-on-exec at start; fd 40 is one it leaves open for its children.
    const low = join(workspace, "parent-fd3.log");
    const high = join(workspace, "parent-fd40.log");
    await writeFile(low, "");
    await writeFile(high, "");
    const script = join(workspace, "host.mts");
    await writeFile(
      script,
      [
        `import { builtinTools, createCheckpoint, createMemoryEventSink, renderResult } from ${JSON.stringify(index)};`,
        `const checkpoint = createCheckpoint({ tools: builtinTools({ workspace: ${JSON.stringify(workspace)}, run: { sandbox: {} } }), policy: () => ({ decision: "allow", rule: "all" }), events: createMemoryEventSink() });`,
        `const command = "ls /proc/self/fd | tr '\\\\n' ' '; echo; (echo leaked >&3) 2>/dev/null && echo wrote-3; (echo leaked >&40) 2>/dev/null && echo wrote-40; echo done";`,
        `const result = await checkpoint.dispatch({ id: "c1", name: "run_command", arguments: JSON.stringify({ command }) });`,
        "process.stdout.write(renderResult(result));",
      ].join("\n"),
    );
    const stdio: ("ignore" | "pipe" | number)[] = ["ignore", "pipe", "pipe"];
    for (let fd = 3; fd <= 40; fd++) stdio.push("ignore");
    stdio[3] = openSync(low, "a");
    stdio[40] = openSync(high, "a");
    const child = spawn(process.execPath, ["--import", tsx, script], { stdio });
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    await new Promise((resolve) => child.on("close", resolve));
    expect(out).toContain("done");
    expect(out).not.toContain("wrote-3");
    expect(out).not.toContain("wrote-40");
    const fds = /^([\d ]+)$/m.exec(out)?.[1]?.trim().split(/\s+/) ?? [];
    // ls itself holds the listing open: 0, 1, 2 and that one.
    expect(fds.filter((fd) => Number(fd) > 2).length).toBeLessThanOrEqual(1);
    expect(readFileSync(low, "utf8")).toBe("");
    expect(readFileSync(high, "utf8")).toBe("");
  }, 60_000);

  it("stops a 64 MB command filling /tmp, /dev/shm or /dev far below the host's memory", async () => {
    const { text } = await run(
      [
        "head -c 200M /dev/zero > /tmp/fill 2>/dev/null; echo tmp=$(du -m /tmp/fill | cut -f1)",
        "head -c 200M /dev/zero > /dev/shm/fill 2>/dev/null; echo shm=$(du -m /dev/shm/fill | cut -f1)",
        "(echo x > /dev/fill) 2>/dev/null || echo dev-read-only",
        "df -m /tmp /dev/shm /var/tmp /run | tail -n +2 | awk '{ total += $2 } END { print \"total=\" total }'",
      ].join("; "),
      { limits: { memoryMb: 64 } },
    );
    const figure = (name: string) => Number(new RegExp(`${name}=(\\d+)`).exec(text)?.[1]);
    expect(figure("tmp")).toBeLessThanOrEqual(32);
    expect(figure("shm")).toBeLessThanOrEqual(16);
    expect(text).toContain("dev-read-only");
    expect(figure("total")).toBeLessThanOrEqual(64);
  });

  it("holds a fork bomb and an oversized allocation at the default limits, and runs the next command", async () => {
    const bomb = await run("bomb() { bomb | bomb & }; bomb; sleep 2; echo after", {}, 4_000);
    expect(bomb.result.status === "ok" || bomb.result.status === "failed").toBe(true);
    const memory = await run(
      "ulimit -d; df -m /tmp /dev/shm /var/tmp /run | tail -n +2 | awk '{ total += $2 } END { print \"total=\" total }'; perl -e '$x = q(a) x (9 * 1024 ** 3); print qq(allocated\\n)' 2>&1 | head -c 200; echo end",
    );
    expect(memory.text).toContain("8388608");
    expect(memory.text).not.toContain("allocated");
    expect(memory.text).toContain("end");
    expect(Number(/total=(\d+)/.exec(memory.text)?.[1])).toBeLessThanOrEqual(8192);
    const next = await run("echo still-here");
    expect(next.text).toContain("still-here");
  }, 60_000);
});
