/** Set by the global `--no-color` flag: it outranks everything else. */
let offByFlag = false;

/**
 * Turn colour off for the rest of the process (the global `--no-color` flag).
 *
 * @example
 * ```ts
 * declare const program: import("commander").Command;
 * program.hook("preAction", (command) => {
 *   if (command.opts().color === false) disableColour();
 * });
 * ```
 */
export function disableColour(): void {
  offByFlag = true;
}

/**
 * The one place that decides whether docket colours what it writes to `stream`. Off with
 * `--no-color`, off with a non-empty `NO_COLOR` (no-color.org), on with `FORCE_COLOR` (unless
 * `0` or `false`, as Node and the peers read it), off on a `dumb` terminal, else on exactly when
 * the stream is a TTY: piped output stays plain text.
 *
 * @example
 * ```ts
 * import { terminalStyle } from "./terminal-style.js";
 * const style = terminalStyle(colourEnabled(process.stderr));
 * ```
 */
export function colourEnabled(
  stream: { readonly isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (offByFlag) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force.toLowerCase() !== "false";
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}
