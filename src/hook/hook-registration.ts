import type { RegistrationTarget } from "./host-adapter.js";
import { type HostName, hostAdapter } from "./host-registry.js";

export type { RegistrationTarget } from "./host-adapter.js";

/**
 * Where a host keeps docket's registration: its adapter's target (Claude Code's project
 * `.claude/settings.json`, gemini-cli's project `.gemini/settings.json`, Codex CLI's
 * `~/.codex/config.toml`, opencode's project `.opencode/plugin/docket.js`).
 *
 * @example
 * ```ts
 * registrationTarget("codex"); // { file: ".codex/config.toml", home: true }
 * ```
 */
export function registrationTarget(host: HostName): RegistrationTarget {
  return hostAdapter(host).registration.target;
}

/**
 * The host's settings with docket's registration removed: exactly docket's entries, and the
 * groups and sections they leave empty; `undefined` when the whole file is docket's (opencode's
 * plugin). Everything else stays as it was.
 *
 * @example
 * ```ts
 * declare const text: string; // the settings file as it is
 * withoutRegistration("claude-code", text, "docket hook claude-code", ".claude/settings.json");
 * ```
 */
export function withoutRegistration(
  host: HostName,
  text: string,
  command: string,
  file: string,
): string | undefined {
  return hostAdapter(host).registration.uninstall(text, command, file);
}

/**
 * The host's settings with docket registered for every tool and for the events that settle what
 * the host's prompt refused, in the host's own format (its adapter's `registration.install`).
 * Registering twice gives the same file.
 *
 * @example
 * ```ts
 * withRegistration("claude-code", "{}", "docket hook claude-code", 30, ".claude/settings.json");
 * ```
 */
export function withRegistration(
  host: HostName,
  text: string,
  command: string,
  timeoutSeconds: number,
  file: string,
): string {
  return hostAdapter(host).registration.install(text, command, timeoutSeconds, file);
}
