import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { installedCli, useInstalledCli } from "../../support/installed-cli.js";

const run = promisify(execFile);
// The installed CLI (the packed package's bundle), installed before the file's tests start.
useInstalledCli();

/** The outcome of one command. */
export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run `docket ARGS` (the installed CLI) in a child process from `cwd`, with
 * HOME pointing at `home` so no real user policy leaks in and no managed policy unless given.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runPolicyCli(["policy", "check", "read_file", "{}"], { cwd, home });
 * ```
 */
export async function runPolicyCli(
  args: readonly string[],
  options: { cwd: string; home: string; env?: Record<string, string> },
): Promise<CliOutcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: options.home, ...options.env };
  delete env.XDG_CONFIG_HOME;
  if (options.env?.DOCKET_MANAGED_POLICY === undefined) delete env.DOCKET_MANAGED_POLICY;
  try {
    const main = await installedCli();
    const { stdout, stderr } = await run(process.execPath, [main, ...args], {
      cwd: options.cwd,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === "number" ? e.code : 1,
      stdout: e.stdout ?? "",
      stderr: e.stderr ?? "",
    };
  }
}
