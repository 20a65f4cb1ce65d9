import { shellSegments } from "./shell-segments.js";

// Programs that, on a terminal, wait for keystrokes and act on them: what a host that types into
// running processes (Codex's write_stdin) would drive, with no hook to see what it types.
const ALWAYS = new Set(
  "less more most vi vim nvim nano emacs ed top htop man screen tmux telnet ftp sftp".split(" "),
);
// Shells and interpreters read commands from the keyboard when given no script and no code.
const READERS = new Set(
  "bash sh zsh dash ksh fish csh tcsh python python3 node irb ruby perl lua php ghci R sqlite3".split(
    " ",
  ),
);
const CODE_FLAGS = /^-(c|e|m|p|E|-eval|-print|-command)$/;
const WRAPPERS = new Set("env sudo nohup exec command time nice stdbuf setsid".split(" "));
// Wrapper options that take the next word (`sudo -u alice`, `nice -n 5`).
const VALUED = new Set(["-u", "-g", "-C", "-U", "-n", "-o", "-e", "-i"]);

/** The program a segment runs, past wrappers and `NAME=value` words, with its arguments. */
function programOf(words: readonly string[]): { name: string; args: string[] } | undefined {
  let at = 0;
  let wrapped = false;
  while (at < words.length) {
    const word = words[at] as string;
    const name = word.slice(word.lastIndexOf("/") + 1);
    if (/^[A-Za-z_]\w*=/.test(word)) at += 1;
    else if (wrapped && word.startsWith("-")) at += VALUED.has(word) ? 2 : 1;
    else if (WRAPPERS.has(name)) {
      wrapped = true;
      at += 1;
    } else if (name === "timeout") at += 2;
    else return { name, args: words.slice(at + 1) };
  }
  return undefined;
}

/**
 * The program in `command` that would sit waiting for keystrokes (a shell or interpreter with no
 * script, a pager, an editor), or undefined. One fed by a pipe reads the pipe, not the keyboard.
 * For a host that can type into a process a call leaves running: that call is the one docket
 * sees, and what is typed later reaches no hook.
 *
 * @example
 * ```ts
 * interactiveStart("cd src && python3"); // "python3"
 * interactiveStart("python3 build.py"); // undefined
 * ```
 */
export function interactiveStart(command: string): string | undefined {
  for (const { words, piped } of shellSegments(command)) {
    const program = programOf(words);
    if (program === undefined || piped) continue;
    if (ALWAYS.has(program.name)) return program.name;
    if (!READERS.has(program.name)) continue;
    const { args } = program;
    if (args.some((arg) => CODE_FLAGS.test(arg))) continue;
    const reads = args.some((arg) => arg === "-i" || arg === "-s" || arg === "-");
    // A script (or, for sqlite3, the SQL after the database) means it reads no keystrokes.
    const operands = args.filter((arg) => !arg.startsWith("-")).length;
    if (reads || operands < (program.name === "sqlite3" ? 2 : 1)) return program.name;
  }
  return undefined;
}
