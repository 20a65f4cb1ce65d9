import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchConfigEnv, builtCli, childrenCpuMs, loadAverage } from "./built-cli.js";
import { benchLongSessionHook } from "./hook-long-session.js";

// Process start to answer for a Claude Code PreToolUse Bash call, as the host runs a hook: the
// built CLI (dist/, what ships) with the payload on stdin, timed from spawn until the process has
// exited with its answer. A real SQLite store and a policy with a shell rule. Beside it, in the
// same interleaved rounds, the floor a hook can be judged against: a minimal 10-line node hook
// that reads its payload and prints an allow (issue 38's target: the daemon client at most 1.2x).
const MINIMAL_HOOK = `let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  input += chunk;
});
process.stdin.on("end", () => {
  const call = JSON.parse(input);
  const answer = { hookEventName: call.hook_event_name, permissionDecision: "allow" };
  process.stdout.write(JSON.stringify({ hookSpecificOutput: answer }));
});
`;

/** One hook process: its wall time from spawn to exit, and its own CPU. */
interface Sample {
  readonly ms: number;
  readonly cpuMs: number;
}

function once(
  cwd: string,
  id: number,
  args: readonly string[],
  sessionId = "bench-session",
): Promise<Sample> {
  // The hook's config folder is the bench's (its audit key, digest log and code cache), in `cwd`.
  const env = benchConfigEnv(cwd);
  const payload = JSON.stringify({
    session_id: sessionId,
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
    const cpuBefore = childrenCpuMs();
    const child = spawn(process.execPath, args, { cwd, env });
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - started;
      if (code !== 0 || !out.includes('"permissionDecision":"allow"')) {
        reject(new Error(`hook answered ${code}: ${out}`));
      } else resolve({ ms, cpuMs: childrenCpuMs() - cpuBefore });
    });
    child.stdin.end(payload);
  });
}

function percentile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/**
 * Time hook processes from start to answer, interleaved round by round: the minimal node hook,
 * `docket hook claude-code --prefer-daemon` (what `hook install` registers; its first call, not
 * timed, starts the daemon) and `docket hook claude-code` in process. Prints p50/p95 and CPU
 * of each, and the daemon client's p50 and CPU over the minimal hook's, with the load average
 * (the client's wall holds the daemon's decision too, its CPU only its own process's). Then the
 * in-process call on a session of 5,000 earlier calls beside one on a new session (ADR 0094).
 *
 * @example
 * ```ts
 * await benchHook(); // hook claude-code through the daemon client (Bash, allow): p50 … ms … 1.14x the minimal hook
 * ```
 */
export async function benchHook(runs = Number(process.env.DOCKET_BENCH_HOOK_RUNS ?? 30)) {
  const { main } = builtCli("hook");
  const dir = await mkdtemp(join(tmpdir(), "docket-bench-hook-"));
  let daemon: number | undefined;
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
    await writeFile(join(dir, "minimal-hook.mjs"), MINIMAL_HOOK);
    const cases = [
      { name: "a minimal 10-line node hook", args: ["minimal-hook.mjs"] },
      { name: "docket, daemon client", args: [main, "hook", "claude-code", "--prefer-daemon"] },
      { name: "docket, in process", args: [main, "hook", "claude-code"] },
    ] as const;
    // Untimed first calls: the store and the audit key are created, the daemon started.
    let id = 0;
    for (const c of cases) await once(dir, id++, c.args);
    const log = await readFile(join(dir, ".docket", "hook-serve.log"), "utf8");
    daemon = Number(/\(process (\d+);/.exec(log)?.[1]) || undefined;
    const samples = cases.map(() => [] as Sample[]);
    for (let round = 0; round < runs; round += 1) {
      for (const [at, c] of cases.entries()) samples[at]?.push(await once(dir, id++, c.args));
    }
    const p50 = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        0.5,
      );
    const p95 = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        0.95,
      );
    const cpu = (at: number) =>
      (samples[at] ?? []).reduce((sum, s) => sum + s.cpuMs, 0) / Math.max(1, runs);
    console.log(
      `hook claude-code (Bash, allow), the built CLI, ${runs} interleaved rounds, load average ${loadAverage()}:`,
    );
    for (const [at, c] of cases.entries()) {
      const ms = (samples[at] ?? []).map((s) => s.ms);
      console.log(
        `  ${c.name.padEnd(30)} p50 ${p50(ms).toFixed(1)} ms, p95 ${p95(ms).toFixed(1)} ms; CPU ${cpu(at).toFixed(1)} ms`,
      );
    }
    const wall =
      p50((samples[1] ?? []).map((s) => s.ms)) / p50((samples[0] ?? []).map((s) => s.ms));
    const own = cpu(1) / cpu(0);
    console.log(
      `  daemon client / minimal hook: wall p50 ${wall.toFixed(2)}x (target 1.2x: ${wall <= 1.2 ? "met" : "NOT met"}), the client's own CPU ${own.toFixed(2)}x`,
    );
    await benchLongSessionHook(
      dir,
      async (sessionId) => (await once(dir, id++, cases[2].args, sessionId)).ms,
    );
  } finally {
    if (daemon !== undefined) process.kill(daemon, "SIGTERM");
    await rm(dir, { recursive: true, force: true });
  }
}
