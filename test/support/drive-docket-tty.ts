import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { CommandOutcome } from "./run-docket.js";

const relay = fileURLToPath(new URL("./pty-relay.py", import.meta.url));

/** A `docket` process at a real pseudo-terminal, typed into step by step. */
export interface TtySession {
  /** Everything the terminal showed so far (`\r\n` as `\n`). */
  output(): string;
  /** Wait until the terminal shows `text` after `from` characters of output; returns its end. */
  waitFor(text: string | RegExp, options?: { from?: number; timeoutMs?: number }): Promise<number>;
  /** Type into the terminal (`\r` is Enter, `\x03` Ctrl-C, `\x04` Ctrl-D, `\x1b[A` up-arrow). */
  type(text: string): void;
  /** Stop typing (the terminal sees no more input) and wait for the exit. */
  done(timeoutMs?: number): Promise<CommandOutcome>;
}

/**
 * Start the installed CLI (`cli`: useBuiltBin's `bin.main`, what `npm pack` ships) under
 * test/support/pty-relay.py, so that its stdin and stdout are a TTY, and drive it as a person
 * would: wait for a prompt, then type. Typing only after the prompt is shown matters at a
 * terminal: a Ctrl-C typed early interrupts whatever runs then. It is the shipped bundle, never
 * the sources under tsx: a Ctrl-C at the terminal reaches the whole foreground process group,
 * tsx's esbuild service with it, and every module loaded after that failed ("The service is no
 * longer running") where a user's docket goes on.
 *
 * @example
 * ```ts
 * const { bin } = useBuiltBin();
 * const tty = driveDocketTty(["chat", "--model", `scripted:${script}`], { cli: bin.main, cwd });
 * await tty.waitFor("you> ");
 * tty.type("hello\r");
 * ```
 */
export function driveDocketTty(
  args: readonly string[],
  options: { cli: string; env?: NodeJS.ProcessEnv; cwd?: string },
): TtySession {
  const child = spawn("python3", [relay, process.execPath, options.cli, ...args], {
    env: { ...process.env, ...options.env },
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let text = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8").replaceAll("\r\n", "\n");
    for (const waiter of waiters) waiter();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = new Promise<number>((resolve) => {
    child.on("close", (code) => {
      resolve(code ?? 1);
      for (const waiter of waiters) waiter();
    });
  });
  let closed = false;
  child.on("close", () => {
    closed = true;
  });
  return {
    output: () => text,
    waitFor(wanted, { from = 0, timeoutMs = 30_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const rest = text.slice(from);
          const found =
            typeof wanted === "string"
              ? { at: rest.indexOf(wanted), length: wanted.length }
              : ((m) => ({ at: m?.index ?? -1, length: m?.[0].length ?? 0 }))(wanted.exec(rest));
          if (found.at >= 0) {
            cleanup();
            resolve(from + found.at + found.length);
          } else if (closed) {
            cleanup();
            reject(new Error(`docket exited before showing ${String(wanted)}:\n${text}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`timed out waiting for ${String(wanted)}; the terminal shows:\n${text}`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    type(input) {
      child.stdin.write(input);
    },
    async done(timeoutMs = 30_000) {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return { code, stdout: text, stderr };
    },
  };
}
