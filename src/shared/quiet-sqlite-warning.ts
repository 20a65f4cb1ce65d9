const SQLITE_WARNING = "SQLite is an experimental feature";

/** True for the one warning Node 22 prints when `node:sqlite` is first loaded. */
function isSqliteWarning(warning: unknown): boolean {
  const text = typeof warning === "string" ? warning : (warning as Error | null)?.message;
  return typeof text === "string" && text.startsWith(SQLITE_WARNING);
}

/**
 * Run `load` with Node 22's ExperimentalWarning for `node:sqlite` kept quiet (docket's store runs
 * on that module; the warning is about its API's stability, not the data), or, without `load`,
 * keep it quiet for the rest of the process (the CLI, which owns its process). Every other
 * warning passes.
 *
 * @example
 * ```ts
 * const sqlite = quietSqliteWarning(() => require("node:sqlite"));
 * ```
 */
export function quietSqliteWarning<T>(load?: () => T): T | undefined {
  const emitWarning = process.emitWarning;
  process.emitWarning = function quiet(this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteWarning(warning)) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  if (!load) return undefined;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}
