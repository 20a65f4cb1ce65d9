import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** How long an auto-started daemon waits without a call before it ends itself. */
export const AUTO_DAEMON_IDLE_SECONDS = 900;
const POLL_MS = 15;

/** What starting a daemon needs: where it listens, and the serve flags the hook line carried. */
export interface StartHookDaemonOptions {
  readonly socket: string;
  readonly cwd: string;
  /** `--config`, `--store` and `--socket` as the registered hook line gave them. */
  readonly serveArgs: readonly string[];
  /** Whether something answers on the socket now (the caller's own ask, without a payload). */
  readonly answers: () => Promise<boolean>;
  /** Give up after this long. */
  readonly waitMs: number;
}

/**
 * Start `docket hook serve` for this folder, detached from the hook that started it (it outlives
 * the call, and ends itself after `AUTO_DAEMON_IDLE_SECONDS` without a call or once its socket is
 * gone), its output in `hook-serve.log` beside the socket. Resolves once a daemon answers on the
 * socket (this one, or one a concurrent hook started first); rejects with the reason when none
 * does: the daemon ended first (the log's last line says why) or `waitMs` passed.
 *
 * @example
 * ```ts
 * declare const answers: () => Promise<boolean>; // asks the socket whether a daemon is there
 * const socket = "/ws/.docket/hook-5f0c2a91d04e7b36.sock";
 * await startHookDaemon({ socket, cwd: process.cwd(), serveArgs: [], answers, waitMs: 10_000 });
 * ```
 */
export async function startHookDaemon(options: StartHookDaemonOptions): Promise<void> {
  const { socket, cwd, serveArgs, answers, waitMs } = options;
  const folder = dirname(socket);
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const logFile = join(folder, "hook-serve.log");
  const log = openSync(logFile, "a", 0o600);
  // Fetched here, not imported: the client's bundle inlines this module, and a call the daemon
  // answers must not pay for loading node:child_process.
  const { spawn } = process.getBuiltinModule("node:child_process");
  let ended: string | undefined;
  try {
    // The same docket as this hook, however it was started (selfCommand's rule).
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        process.argv[1] ?? "docket",
        "hook",
        "serve",
        ...serveArgs,
        "--exit-when-idle",
        String(AUTO_DAEMON_IDLE_SECONDS),
      ],
      { cwd, detached: true, stdio: ["ignore", log, log] },
    );
    child.on("error", (error) => {
      ended = error.message;
    });
    child.on("exit", (code, signal) => {
      ended = `it exited (${signal ?? code})`;
    });
    child.unref();
  } finally {
    closeSync(log);
  }
  const deadline = performance.now() + waitMs;
  while (performance.now() < deadline) {
    if (await answers()) return;
    // Ended, and nothing answers: a concurrent hook's daemon would have answered by now.
    if (ended !== undefined) {
      if (await answers()) return;
      throw new Error(`docket hook serve did not start: ${lastLine(logFile) ?? ended}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`docket hook serve did not answer on ${socket} within ${waitMs} ms`);
}

function lastLine(file: string): string | undefined {
  try {
    const lines = readFileSync(file, "utf8").trim().split("\n");
    return lines.at(-1)?.replace(/^docket:\s*/, "") || undefined;
  } catch {
    return undefined;
  }
}
