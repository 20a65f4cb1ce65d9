import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const relay = fileURLToPath(new URL("./pty-relay.py", import.meta.url));
const ESC = String.fromCharCode(0x1b);
const BEL = String.fromCharCode(0x07);
/** Terminal control sequences: CSI, OSC (to BEL) and two-byte escapes. */
const TERMINAL_CODES = new RegExp(
  `${ESC}\\[[0-9;?>]*[a-zA-Z]|${ESC}\\][^${BEL}]*${BEL}|${ESC}.`,
  "g",
);

/** A real host's interactive UI at a pseudo-terminal, typed into as a person would. */
export interface HostTty {
  /**
   * Wait until the screen, after `from` characters of output, shows `text`: matched against the
   * text without control sequences or white space (these UIs move the cursor between words).
   * Returns where the output ends now, for the next wait.
   */
  shown(text: RegExp, from?: number): Promise<number>;
  /** Type into the terminal (`\r` Enter, `ESC` Escape). */
  type(text: string): void;
  /** Ctrl-C twice (these UIs' way out), then a kill if it has not ended in 10 s. */
  close(): Promise<void>;
}

/** Escape, as typed. */
export const ESCAPE = ESC;

/**
 * Start `command` under test/support/pty-relay.py in a 120×40 terminal (some UIs draw nothing
 * without a size) and drive it.
 *
 * @example
 * ```ts
 * const tty = driveHostTty(hostBinary("claude"), ["make it"], { cwd, env });
 * await tty.shown(/Doyouwanttoproceed/);
 * tty.type(ESCAPE);
 * ```
 */
export function driveHostTty(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): HostTty {
  const child = spawn(
    "python3",
    [relay, "sh", "-c", 'stty cols 120 rows 40; exec "$0" "$@"', command, ...args],
    { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] },
  );
  let screen = "";
  child.stdout.on("data", (chunk: Buffer) => {
    screen += chunk.toString("utf8");
  });
  const ended = new Promise<void>((resolve) => child.on("close", () => resolve()));
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  return {
    async shown(text, from = 0) {
      const started = Date.now();
      const plain = () => screen.slice(from).replace(TERMINAL_CODES, "").replace(/\s+/g, "");
      while (!text.test(plain())) {
        if (Date.now() - started > 90_000) throw new Error(`not shown: ${text}\n${plain()}`);
        await pause(200);
      }
      return screen.length;
    },
    type(text) {
      child.stdin.write(text);
    },
    async close() {
      child.stdin.write("\x03");
      await pause(300);
      child.stdin.write("\x03");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await ended;
      clearTimeout(timer);
    },
  };
}
