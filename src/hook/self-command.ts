import { shellLine } from "./shell-word.js";

/**
 * The words that start this very docket again (`node [its flags] …/main.js`), so what docket
 * writes for a host to run (its hook, a contained command) runs the same code, whichever way
 * docket was installed or started.
 *
 * @example
 * ```ts
 * selfCommand(["hook", "claude-code"]); // "/usr/bin/node /usr/lib/node_modules/docket/dist/cli/main.js hook claude-code"
 * ```
 */
export function selfCommand(args: readonly string[]): string {
  return shellLine([process.execPath, ...process.execArgv, process.argv[1] ?? "docket", ...args]);
}
