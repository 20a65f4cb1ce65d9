import type { NetworkRuleLayer } from "./network-rules.js";

/**
 * A sandbox network that reaches the outside only through docket's filtering proxy, one host at a
 * time: the `sandbox.network: { allow, ask, deny }` of docket.yaml, as code.
 *
 * @example
 * ```ts
 * const network: SandboxNetworkFilter = {
 *   rules: [{ name: "project", allow: ["registry.npmjs.org"], ask: ["*.github.com"] }],
 * };
 * ```
 */
export interface SandboxNetworkFilter {
  /** Rule layers; every matching pattern votes and the strictest wins; no match is deny. */
  readonly rules: readonly NetworkRuleLayer[];
  /**
   * Names resolved to fixed addresses, which the address check then lets through (a staging
   * server on a private network). Everything else must resolve to public addresses only.
   */
  readonly hosts?: Readonly<Record<string, string>>;
  /** How long a connection an `ask` rule holds waits for a person (default 60 s). */
  readonly askTimeoutMs?: number;
}

/**
 * True when the setting is a filter rather than `none`, `loopback` or `all`.
 *
 * @example
 * ```ts
 * isNetworkFilter("none"); // false
 * isNetworkFilter({ rules: [] }); // true
 * ```
 */
export function isNetworkFilter(network: unknown): network is SandboxNetworkFilter {
  return typeof network === "object" && network !== null && "rules" in network;
}
