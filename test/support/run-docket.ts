import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
// Resolved from this repository, so the child can run from any directory.
const tsx = import.meta.resolve("tsx");

/** The outcome of one `docket` command. */
export interface CommandOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run the CLI from source in a child process, as a user runs the `docket` bin.
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
    const { stdout, stderr } = await run(process.execPath, ["--import", tsx, main, ...args], {
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
