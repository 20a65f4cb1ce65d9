/** The deadline before docket's settings are read (module loading, on a busy machine). */
export const FIRST_DEADLINE_MS = 30_000;

/**
 * The first deadline of a hook call: `DOCKET_HOOK_TIMEOUT` (milliseconds) when set to a positive
 * number, else `FIRST_DEADLINE_MS`. Its own module: the daemon client reads it without loading
 * the guard.
 *
 * @example
 * ```ts
 * firstDeadline({ DOCKET_HOOK_TIMEOUT: "5000" }); // 5000
 * ```
 */
export function firstDeadline(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.DOCKET_HOOK_TIMEOUT);
  return Number.isFinite(value) && value > 0 ? value : FIRST_DEADLINE_MS;
}
