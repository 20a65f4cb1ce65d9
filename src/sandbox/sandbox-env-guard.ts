/**
 * Why a variable may never enter the sandbox, or undefined when it may. Every `DOCKET_*` name is
 * docket's own (DOCKET_TOKEN, an approver's token; DOCKET_STORE, with its password;
 * DOCKET_GATEWAY_TOKEN …), and `credentials` adds the names the configuration reads secrets
 * from (an approver's `token_env`, the model's `api_key_env`), each with where it is named. An
 * agent's shell that held one could decide its own approvals or spend docket's keys, so a user
 * who lists one in `sandbox.env` is refused, not obeyed.
 *
 * @example
 * ```ts
 * forbiddenSandboxEnv("DOCKET_TOKEN"); // "DOCKET_TOKEN is one of docket's own variables …"
 * forbiddenSandboxEnv("CI");           // undefined
 * ```
 */
export function forbiddenSandboxEnv(
  name: string,
  credentials: ReadonlyMap<string, string> = new Map(),
): string | undefined {
  if (/^DOCKET_/i.test(name)) {
    return `${name} is one of docket's own variables (its approver token, store or gateway credentials), which the agent's shell must never hold`;
  }
  const source = credentials.get(name) ?? credentials.get(name.toUpperCase());
  if (source !== undefined) {
    return `${name} holds a credential of docket's (${source}), which the agent's shell must never hold`;
  }
  return undefined;
}
