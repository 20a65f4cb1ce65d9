import { SANDBOX_DEFAULTS, type SandboxNetwork } from "../sandbox-settings.js";
import { isNetworkFilter, type SandboxNetworkFilter } from "./network-filter.js";
import type { NetworkRuleLayer } from "./network-rules.js";

/** The sandbox's own network setting and the policy layers' votes on it. */
export interface NetworkSources {
  readonly network?: SandboxNetwork | SandboxNetworkFilter | undefined;
  readonly networkLayers?: readonly NetworkRuleLayer[] | undefined;
}

/**
 * The network a launch really gets once the policy's layers have voted (ADR 0052): `none` and
 * `loopback` reach nothing outside, so no rule can make them stricter and they stay; a filter
 * counts the layers' rules before its own (every matching pattern votes, the strictest wins);
 * `all` with any layer voting becomes a filter whose own vote allows every host, so a managed or
 * user `deny` or `ask` holds there too, through the proxy, where alone it can be enforced.
 *
 * @example
 * ```ts
 * effectiveNetwork({ network: "all", networkLayers: [{ name: "managed", deny: ["pastebin.com"] }] });
 * // { rules: [{ name: "managed", deny: ["pastebin.com"] }, { name: "sandbox", allow: ["*"] }] }
 * ```
 */
export function effectiveNetwork({
  network = SANDBOX_DEFAULTS.network,
  networkLayers = [],
}: NetworkSources): SandboxNetwork | SandboxNetworkFilter {
  const voting = networkLayers.filter(
    (layer) =>
      (layer.allow?.length ?? 0) + (layer.ask?.length ?? 0) + (layer.deny?.length ?? 0) > 0,
  );
  if (voting.length === 0) return network;
  if (isNetworkFilter(network)) return { ...network, rules: [...voting, ...network.rules] };
  switch (network) {
    case "none":
    case "loopback":
      return network;
    case "all":
      return { rules: [...voting, { name: "sandbox", allow: ["*"] }] };
  }
}
