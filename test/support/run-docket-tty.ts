import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { installedCli, useInstalledCli } from "./installed-cli.js";
import type { CommandOutcome } from "./run-docket.js";

const relay = fileURLToPath(new URL("./pty-relay.py", import.meta.url));
// The installed CLI, installed before each file's tests start.
useInstalledCli();

/**
 * Run the installed CLI (test/support/installed-cli.ts, what `npm pack` ships) under a real
 * pseudo-terminal (test/support/pty-relay.py), so that its stdin and stdout are a TTY. The
 * terminal merges stdout and stderr: both come back in `stdout`, with `\r\n` line ends turned
 * into `\n`.
 *
 * @example
 * ```ts
 * const { code, stdout } = await runDocketTty(["approvals", "approve", id, "--as", "alice"]);
 * ```
 */
export function runDocketTty(
  args: readonly string[],
  options: {
    env?: NodeJS.ProcessEnv;
    cwd?: string;
    input?: string;
    /** Sees the terminal's output as it comes (to tell when something appeared). */
    onData?: (text: string) => void;
  } = {},
): Promise<CommandOutcome> {
  return installedCli().then((main) => ttyOutcome(main, args, options));
}

function ttyOutcome(
  main: string,
  args: readonly string[],
  options: Parameters<typeof runDocketTty>[1] & object,
): Promise<CommandOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn("python3", [relay, process.execPath, main, ...args], {
      env: { ...process.env, ...options.env },
      cwd: options.cwd,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      options.onData?.(chunk.toString("utf8"));
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({ code: code ?? 1, stdout: stdout.replaceAll("\r\n", "\n"), stderr }),
    );
    child.stdin.end(options.input ?? "");
  });
}
