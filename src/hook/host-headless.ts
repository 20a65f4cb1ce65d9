import { readFileSync, readlinkSync } from "node:fs";
import * as path from "node:path";

/** Where a host's processes are read from: Linux's /proc, or a stand-in for a test. */
export interface ProcessTable {
  /** The process's arguments, or undefined when it cannot be read. */
  argv(pid: number): readonly string[] | undefined;
  /** Its parent's id, or undefined. */
  parent(pid: number): number | undefined;
  /** What its file descriptor `fd` points at (`/dev/pts/3`, `pipe:[123]`), or undefined. */
  fd(pid: number, fd: number): string | undefined;
  /** One variable of its environment, or undefined. */
  env(pid: number, name: string): string | undefined;
}

/** Linux's /proc, read as the same user: a host's process tree above the hook. */
export const procTable: ProcessTable = {
  argv: (pid) => {
    const text = read(`/proc/${pid}/cmdline`);
    return text === undefined ? undefined : text.split("\0").filter((arg) => arg !== "");
  },
  parent: (pid) => {
    const stat = read(`/proc/${pid}/stat`);
    // The command name may hold spaces and parentheses: the fields start after the last ")".
    const ppid =
      stat === undefined ? Number.NaN : Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  },
  fd: (pid, fd) => {
    try {
      return readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      return undefined;
    }
  },
  env: (pid, name) => {
    const text = read(`/proc/${pid}/environ`);
    const line = text?.split("\0").find((entry) => entry.startsWith(`${name}=`));
    return line?.slice(name.length + 1);
  },
};

function read(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
}

const TERMINAL = /^\/dev\/(pts\/\d+|tty\w*|console)$/;
// The hook runs under a shell gemini-cli starts (and maybe npx or env): a few levels at most.
const MAX_DEPTH = 8;

/** Where gemini-cli's own arguments start in a process's argv, or -1 when it is not gemini-cli. */
function geminiArgsAt(argv: readonly string[]): number {
  // `node [node options] …/gemini-cli/bundle/gemini.js ARGS`, its relaunched child alike, or a
  // single executable named gemini.
  for (let i = 0; i < Math.min(argv.length, 4); i += 1) {
    const arg = argv[i] as string;
    // Before the script only the interpreter and its options; a shell's `-c` script is not it.
    if (i > 1 && !argv[i - 1]?.startsWith("-")) break;
    if (/\s/.test(arg)) continue;
    if (/^gemini(\.js)?$/.test(path.basename(arg)) || /[\\/]@google[\\/]gemini-cli[\\/]/.test(arg))
      return i + 1;
  }
  return -1;
}

/**
 * Whether the gemini-cli above this hook runs headless, where its own permission prompt can
 * never be answered (an `ask` handed to it would wait forever): `-p`/`--prompt`, no terminal
 * on its standard input or output, or `CI`/`GITHUB_ACTIONS` set, as gemini-cli itself decides.
 * Undefined when no gemini-cli process is found above `pid` or it cannot be read.
 *
 * @example
 * ```ts
 * geminiHeadless(); // true under `gemini -p "fix it"`, false in its terminal UI
 * ```
 */
export function geminiHeadless(
  pid = process.ppid,
  table: ProcessTable = procTable,
): boolean | undefined {
  let current: number | undefined = pid;
  for (let depth = 0; current !== undefined && depth < MAX_DEPTH; depth += 1) {
    const argv = table.argv(current);
    if (argv === undefined) return undefined;
    const at = geminiArgsAt(argv);
    if (at >= 0) {
      const args = argv.slice(at);
      if (
        args.some(
          (arg) =>
            arg === "-i" ||
            arg === "--prompt-interactive" ||
            arg.startsWith("--prompt-interactive="),
        )
      )
        return false;
      if (args.some((arg) => arg === "-p" || arg === "--prompt" || arg.startsWith("--prompt=")))
        return true;
      const ci =
        table.env(current, "CI") === "true" || table.env(current, "GITHUB_ACTIONS") === "true";
      if (ci && table.env(current, "GEMINI_CLI_INTEGRATION_TEST") !== "true") return true;
      const input = table.fd(current, 0);
      const output = table.fd(current, 1);
      if (input === undefined || output === undefined) return undefined;
      return !(TERMINAL.test(input) && TERMINAL.test(output));
    }
    current = table.parent(current);
  }
  return undefined;
}
