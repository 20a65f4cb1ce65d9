import type { SimpleCommand } from "./shell-analysis.js";

/**
 * Wrappers that change nothing about what the command they run may do: a shell's `-c` string,
 * `env`, `timeout`, `time`, `nice`, `xargs` and their kin. When the analysis found what one runs
 * (`wraps`), an allow rule need not name the wrapper: the commands inside decide (every one must
 * be allowed), and a deny or ask rule matching the wrapper itself still counts. Wrappers that
 * change who or where the command runs (`sudo`, `su`, `ssh`, `chroot`, `nsenter`), outlive the
 * call (`nohup`, `setsid`, `watch`) or act on their own (`find`, `flock`, `script`) are not here:
 * a rule must name them. The same list lets a wrapper around reads be a read (read-only-script.ts).
 */
export const SEE_THROUGH_WRAPPERS: ReadonlySet<string> = new Set([
  "bash",
  "sh",
  "dash",
  "zsh",
  "ksh",
  "env",
  "timeout",
  "time",
  "nice",
  "ionice",
  "stdbuf",
  "xargs",
  "command",
  "chronic",
  "unbuffer",
]);

/**
 * Whether a command is a see-through wrapper whose inner commands the analysis found.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell-parser.js";
 * const parser = await loadShellParser();
 * const [outer] = parser.analyse("timeout 5 ls").commands;
 * seesThrough(outer!); // true: `ls` is listed after it and decides
 * ```
 */
export function seesThrough(command: SimpleCommand): boolean {
  return command.wraps === true && SEE_THROUGH_WRAPPERS.has(baseName(command.program));
}

/**
 * A program's base name, lower-cased as the analyser's tables key it (`/usr/bin/Env` is `env`).
 * Kept here rather than imported from the analyser, which the policy engine loads only with the
 * first shell call.
 *
 * @example
 * ```ts
 * baseName("/usr/bin/Env"); // "env"
 * ```
 */
export function baseName(program: string): string {
  return program.slice(program.lastIndexOf("/") + 1).toLowerCase();
}
