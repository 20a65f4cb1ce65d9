import { maskSecrets } from "../shared/mask-secrets.js";
import { isExpectedError, writeCrashLog } from "./crash-log.js";

/**
 * Report an error in one line on standard error: a `DocketError` or a command's own words as
 * they are; anything unexpected as one line saying where the full error was logged. Never a
 * stack trace. Returns the exit code (1).
 *
 * @example
 * ```ts
 * declare const error: unknown; // what the command threw
 * process.exitCode = reportError(error, process.argv.slice(2));
 * ```
 */
export function reportError(error: unknown, argv: readonly string[]): number {
  const message = maskSecrets(String((error as Error)?.message ?? error)).split("\n")[0];
  if (isExpectedError(error)) {
    process.stderr.write(`docket: ${message}\n`);
    return 1;
  }
  const log = writeCrashLog(error, argv);
  process.stderr.write(
    `docket: unexpected error: ${message}${log ? ` (details in ${log})` : ""}\n`,
  );
  return 1;
}
