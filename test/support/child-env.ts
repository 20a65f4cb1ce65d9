/**
 * The environment for a docket process a test starts through an MCP client transport. The MCP
 * SDK's `StdioClientTransport` gives a child only a few variables (`HOME`, `PATH`, …) unless told
 * otherwise, so a docket gateway started without this would drop the test run's
 * `XDG_CONFIG_HOME` (vitest.config.ts) and create and write the real user's audit key and digest
 * log under `~/.config/docket`. This is the test process's own environment, `extra` on top.
 *
 * @example
 * ```ts
 * new StdioClientTransport({ command: process.execPath, args: [cli, "gateway"], env: childEnv() });
 * ```
 */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}
