import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDocketError } from "../errors/docket-error.js";
import { maskSecrets } from "../shared/mask-secrets.js";

function describe(error: unknown, depth = 0): string {
  if (!(error instanceof Error)) return String(error);
  const text = error.stack ?? `${error.name}: ${error.message}`;
  const cause = (error as { cause?: unknown }).cause;
  return cause === undefined || depth > 4
    ? text
    : `${text}\nCaused by: ${describe(cause, depth + 1)}`;
}

/**
 * Write an unexpected error in full (stack and causes, secrets masked) to a log file in the OS
 * temp dir, and return its path; undefined when even that fails.
 *
 * @example
 * ```ts
 * const log = writeCrashLog(new TypeError("x is undefined"), ["run", "hi"]);
 * ```
 */
export function writeCrashLog(
  error: unknown,
  argv: readonly string[],
  { dir = tmpdir(), now = new Date() }: { dir?: string; now?: Date } = {},
): string | undefined {
  const file = join(
    dir,
    `docket-error-${now.toISOString().replace(/[:.]/g, "-")}-${process.pid}.log`,
  );
  try {
    const body = [
      `docket ${argv.join(" ")}`,
      `at ${now.toISOString()}, node ${process.version}, cwd ${process.cwd()}`,
      describe(error),
      "",
    ].join("\n");
    writeFileSync(file, maskSecrets(body), { mode: 0o600 });
    return file;
  } catch {
    return undefined;
  }
}

/**
 * Whether an error is one docket meant to say (its message is written for the user) rather
 * than a bug or a system failure to log: a `DocketError`, or a plain `Error` a command threw
 * with words for the user. A `TypeError`, or an error from the system (`errno`), is unexpected.
 *
 * @example
 * ```ts
 * isExpectedError(new Error('Give a prompt: docket run "…"')); // true
 * isExpectedError(new TypeError("Cannot read properties of undefined")); // false
 * ```
 */
export function isExpectedError(error: unknown): boolean {
  if (isDocketError(error)) return true;
  return (
    error instanceof Error &&
    error.constructor === Error &&
    (error as NodeJS.ErrnoException).syscall === undefined &&
    (error as NodeJS.ErrnoException).errno === undefined
  );
}
