import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { installedCli, useInstalledCli } from "./installed-cli.js";

const run = promisify(execFile);
// Every file that runs the CLI installs it before its tests start (the first of a run packs).
useInstalledCli();

/** The outcome of one `docket` command. */
export interface CommandOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run the installed CLI (the packed package's bundle, test/support/installed-cli.ts) in a child
 * process, as a user runs the `docket` bin.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runDocket(["--version"]);
 * ```
 */
export async function runDocket(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {},
): Promise<CommandOutcome> {
  try {
    const main = await installedCli();
    const { stdout, stderr } = await run(process.execPath, [main, ...args], {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
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
