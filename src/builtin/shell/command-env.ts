import { isSecretEnvName } from "../../shared/is-secret-env-name.js";

export { isSecretEnvName };

/** How a command's environment is built from the harness's own. */
export interface CommandEnvOptions {
  /** Names passed through even though they look like secrets (exact, case-insensitive). */
  allow?: string[];
  /** Variables set (or overridden) for every command; always applied, secrets or not. */
  set?: Record<string, string>;
  /** Pass every variable through, secrets included. Default false. */
  inheritSecrets?: boolean;
}

/**
 * Build a command's environment: the base environment minus secret-looking names (unless
 * allowed or `inheritSecrets`), then `set` applied on top. Also returns the names withheld, so
 * a caller can explain a missing variable.
 *
 * @example
 * ```ts
 * const { env, withheld } = buildCommandEnv(process.env, { allow: ["NPM_TOKEN"], set: { CI: "1" } });
 * ```
 */
export function buildCommandEnv(
  base: NodeJS.ProcessEnv,
  { allow = [], set = {}, inheritSecrets = false }: CommandEnvOptions = {},
): { env: Record<string, string>; withheld: string[] } {
  const allowed = new Set(allow.map((name) => name.toUpperCase()));
  const env: Record<string, string> = {};
  const withheld: string[] = [];
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (!inheritSecrets && !allowed.has(name.toUpperCase()) && isSecretEnvName(name)) {
      withheld.push(name);
      continue;
    }
    env[name] = value;
  }
  Object.assign(env, set);
  return { env, withheld: withheld.sort() };
}
