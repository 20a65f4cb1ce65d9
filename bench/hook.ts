import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// Process start to answer for a Claude Code PreToolUse Bash call: `node …/main.js hook
// claude-code` with the payload on stdin, timed from spawn until the process has exited with its
// answer. The compiled CLI (.bench-build), a real SQLite store and a policy with a shell rule.
const main = fileURLToPath(new URL("../src/cli/main.js", import.meta.url));

function once(cwd: string, id: number, flags: readonly string[] = []): Promise<number> {
  const payload = JSON.stringify({
    session_id: "bench-session",
    transcript_path: "/tmp/t.jsonl",
    cwd,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: "git status && ls -la | wc -l", description: "look" },
    tool_use_id: `toolu_bench_${id}`,
  });
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const args = [main, "hook", "claude-code", ...flags];
    const child = spawn(process.execPath, args, { cwd });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code !== 0 || !out.includes('"permissionDecision":"allow"')) {
        reject(new Error(`hook answered ${code}: ${out}`));
      } else resolve(ms);
    });
    child.stdin.end(payload);
  });
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/**
 * Time `docket hook claude-code` from process start to answer, sequentially, and print p50/p95.
 *
 * @example
 * ```ts
 * await benchHook(); // hook claude-code in process (Bash, allow): p50 … ms, p95 … ms over 20 runs; then the daemon forms
 * ```
 */
export async function benchHook(runs = 20): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "docket-bench-hook-"));
  try {
    await writeFile(
      join(dir, "docket.yaml"),
      [
        "policy:",
        "  rules:",
        "    - { id: look, tool: run_command, command: ['git status', 'ls *', 'wc *'], decision: allow }",
        "",
      ].join("\n"),
    );
    await once(dir, -1); // creates the store and the audit key
    const report = (what: string, times: number[]) => {
      const sorted = [...times].sort((a, b) => a - b);
      console.log(
        `hook claude-code ${what} (Bash, allow): p50 ${percentile(sorted, 0.5).toFixed(0)} ms, p95 ${percentile(sorted, 0.95).toFixed(0)} ms over ${runs} runs`,
      );
    };
    const inProcess: number[] = [];
    for (let i = 0; i < runs; i += 1) inProcess.push(await once(dir, i));
    report("in process", inProcess);
    // What install registers, with no daemon running: one refused connect, then in process.
    const fallback: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      fallback.push(await once(dir, 3 * runs + i, ["--prefer-daemon"]));
    }
    report("--prefer-daemon, no daemon", fallback);
    const serve = spawn(process.execPath, [main, "hook", "serve"], { cwd: dir });
    try {
      await new Promise<void>((resolve, reject) => {
        let said = "";
        serve.stderr.on("data", (chunk) => {
          said += chunk;
          if (said.includes("answering hook calls")) resolve();
        });
        serve.on("close", () => reject(new Error(`hook serve ended: ${said}`)));
      });
      const daemon: number[] = [];
      for (let i = 0; i < runs; i += 1) daemon.push(await once(dir, runs + i, ["--daemon"]));
      report("--daemon", daemon);
      const preferred: number[] = [];
      for (let i = 0; i < runs; i += 1) {
        preferred.push(await once(dir, 4 * runs + i, ["--prefer-daemon"]));
      }
      report("--prefer-daemon, daemon up", preferred);
    } finally {
      serve.kill("SIGTERM");
    }
    console.log(`an empty node process, start to exit: ${(await nodeStart()).toFixed(0)} ms (p50)`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The floor: the median start-to-exit of `node -e ""` on this machine, now. */
async function nodeStart(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 10; i += 1) {
    const started = performance.now();
    await new Promise((resolve) => spawn(process.execPath, ["-e", ""]).on("close", resolve));
    times.push(performance.now() - started);
  }
  return percentile(
    [...times].sort((a, b) => a - b),
    0.5,
  );
}
