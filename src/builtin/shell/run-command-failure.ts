import { constants } from "node:os";
import type { ToolFailureReport } from "../../tool/tool.js";
import type { RunCommandResult } from "./run-command.handler.js";

/**
 * Whether a finished command failed, in the words the model reads after "run_command failed: ".
 * A zero exit is success; a non-zero exit is `command_failed`, as is an end by a signal; a
 * command stopped at its deadline is `timeout`. The output is kept either way (the checkpoint
 * attaches it), as Claude Code's Bash tool reports a failing command.
 *
 * @example
 * ```ts
 * const result = { exitCode: 0, signal: null, timedOut: false, durationMs: 120 };
 * runCommandFailure({ ...result, exitCode: 3 }); // { reason: "command_failed", message: "the command exited with code 3." }
 * ```
 */
export function runCommandFailure(
  result: Pick<RunCommandResult, "exitCode" | "signal" | "timedOut" | "durationMs">,
): ToolFailureReport | undefined {
  if (result.timedOut) {
    return {
      reason: "timeout",
      message: `the command did not finish in time and was stopped after ${result.durationMs} ms; whether it changed anything is unknown.`,
    };
  }
  if (result.signal !== null) {
    return { reason: "command_failed", message: `the command was ended by ${result.signal}.` };
  }
  if (result.exitCode === 0) return undefined;
  return {
    reason: "command_failed",
    message: `the command exited with code ${result.exitCode ?? "unknown"}${signalHint(result.exitCode)}.`,
  };
}

/**
 * Shells (and bubblewrap, whose child the command is in the sandbox) report a child ended by
 * signal N as exit 128+N. The code alone cannot prove it (`exit 137` looks the same), so say
 * "probably".
 */
function signalHint(code: number | null): string {
  if (code === null || code <= 128 || code > 128 + 64) return "";
  const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
  return name ? ` (128+${code - 128}: probably ended by ${name})` : "";
}
