// First: the hook defines its tools after the development lint warnings are off (as the CLI).
import "../cli/quiet-tool-lint.js";
import type { HookRunner } from "./hook-guard.js";
import { isHostName } from "./host-registry.js";
import { runHook } from "./run-hook.js";

/**
 * The hook run the guard loads: the host named on the command line, the payload, the flags.
 *
 * @example
 * ```ts
 * import { guardHook, nodeHookIo } from "./hook-guard.js";
 * const argv = process.argv.slice(2); // ["hook", "claude-code"]
 * const io = nodeHookIo();
 * await guardHook(argv, async () => (await import("./hook-main.js")).hookRunner, io);
 * ```
 */
export const hookRunner: HookRunner = async ({ host, text, config, store, onDeadline }) => {
  if (!isHostName(host)) throw new Error(`there is no hook for ${JSON.stringify(host)}`);
  return runHook({ host, text, config, store, onDeadline });
};
