// First: no tool may be defined before the development lint warnings are turned off.
import "./quiet-tool-lint.js";
import { beforeWasmCompile } from "../shared/before-wasm-compile.js";
import { CommandExit } from "./command-exit.js";
import { runCheck } from "./commands/policy-check.js";
import type { PolicyCheckArgv } from "./commands/policy-check-argv.js";
import { keepWasmInLiftoff } from "./keep-wasm-in-liftoff.js";
import { quietOnClosedPipe } from "./quiet-on-closed-pipe.js";
import { reportError } from "./report-error.js";

/** What the built CLI's loader of this bundle (policy-check-loader.ts) hooks into. */
export interface PolicyCheckHooks {
  /** Called once, just before the check sets a V8 flag (before tree-sitter's first compile). */
  readonly beforeV8Flags?: () => void;
}

/**
 * `docket policy check TOOL ARGS [--json]` as main.ts runs it when readPolicyCheckArgv reads the
 * arguments: without commander, and in the built CLI from a bundle of its own (a few module
 * files instead of fifty: scripts/bundle.mjs, docs/adr/0021-cold-start-floor.md). The same
 * output and exit code as the command commander runs; returns the exit code.
 *
 * @example
 * ```ts
 * const argv = process.argv.slice(2);
 * process.exitCode = await runPolicyCheck({ tool: "run_command", args: '{"command":"ls"}', json: false }, argv);
 * ```
 */
export async function runPolicyCheck(
  check: PolicyCheckArgv,
  argv: readonly string[],
  { beforeV8Flags }: PolicyCheckHooks = {},
): Promise<number> {
  // Whatever escapes (an error event nobody handled, a rejected promise nobody awaited) ends the
  // check with one line and a log, as for every command; this bundle's own errors, so its own
  // handler (a DocketError of this bundle is not one of main.ts's).
  const crash = (error: unknown) => {
    process.exitCode = reportError(error, argv);
    process.exit();
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  // This bundle's own copy of the hook: set just before tree-sitter's first compile.
  beforeWasmCompile(() => {
    beforeV8Flags?.();
    keepWasmInLiftoff();
  });
  try {
    await runCheck(check.tool, check.args, {
      tool: [],
      principal: "cli",
      ...(check.json ? { json: true } : {}),
    });
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommandExit) return error.exitCode;
    return reportError(error, argv);
  }
}
