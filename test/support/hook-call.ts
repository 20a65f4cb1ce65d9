import { type ChildProcess, spawn } from "node:child_process";
import { installedCliPath } from "./installed-cli.js";

/** What a hook process answered: its exit code and its output. */
export interface HookAnswer {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * One hook call as a host makes it: the installed CLI's `docket hook HOST FLAGS…` in `cwd`, the
 * payload on standard input. `started` gets the process (to kill it mid-call).
 *
 * @example
 * ```ts
 * useInstalledCli(); // in the test file
 * const answer = await hookCall({ cwd: "/tmp/p", env: process.env }, ["--prefer-daemon"], "{}");
 * ```
 */
export function hookCall(
  {
    cwd,
    env,
    host = "claude-code",
    nodeArgs = [],
    cli = installedCliPath(),
  }: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    host?: string;
    /** Node's own flags before the CLI (`--import` a loader, say). */
    nodeArgs?: readonly string[];
    /** The CLI's launcher to run: the installed one unless given. */
    cli?: string;
  },
  flags: readonly string[],
  payload: string,
  started?: (child: ChildProcess) => void,
): Promise<HookAnswer> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, cli, "hook", host, ...flags], {
      cwd,
      env,
    });
    started?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    // A hook that answers before reading all of a large payload closes its end early.
    child.stdin.on("error", () => undefined);
    child.stdin.end(payload);
  });
}
