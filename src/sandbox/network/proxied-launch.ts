import type { SandboxNetwork } from "../sandbox-settings.js";
import { isNetworkFilter, type SandboxNetworkFilter } from "./network-filter.js";
import { forwardedArgv, proxyEnv } from "./sandbox-forwarder.js";

/** A running proxy a launch is pointed at: its Unix socket, and the Node.js that forwards to it. */
export interface LaunchProxy {
  readonly socketPath: string;
  /** A Node.js binary visible inside the sandbox (default: the one running docket). */
  readonly node?: string;
}

/** What a filtered network adds to a launch, or why it cannot start. */
export type ProxiedLaunch =
  | {
      readonly status: "ready";
      /** What bubblewrap is told: a filter is a network namespace of its own, as `none`. */
      readonly network: SandboxNetwork;
      readonly env: Readonly<Record<string, string>>;
      /** The socket, bound in at its own path. */
      readonly readOnly: readonly string[];
      readonly argv: readonly string[];
    }
  | { readonly status: "refused"; readonly reason: string };

/**
 * The launch's part of a filtered network: with `none`, `loopback` or `all` nothing changes;
 * with a filter the sandbox gets no network but its loopback, the proxy's socket bound in, the
 * proxy variables, and the command behind the in-sandbox forwarder. A filter without a running
 * proxy is refused: the network would be either closed without saying so, or open.
 *
 * @example
 * ```ts
 * proxiedLaunch({ rules: [] }, { socketPath: "/tmp/d/proxy.sock" }, ["bash", "-c", "npm ci"]);
 * // { status: "ready", network: "none", env: { HTTPS_PROXY: "http://127.0.0.1:3128", … }, … }
 * ```
 */
export function proxiedLaunch(
  network: SandboxNetwork | SandboxNetworkFilter,
  proxy: LaunchProxy | undefined,
  argv: readonly string[],
): ProxiedLaunch {
  if (!isNetworkFilter(network)) return { status: "ready", network, env: {}, readOnly: [], argv };
  if (proxy === undefined) {
    return {
      status: "refused",
      reason:
        "Refused: sandbox.network lists hosts, but no network proxy was started for this launch.",
    };
  }
  return {
    status: "ready",
    network: "none",
    env: proxyEnv(),
    readOnly: [proxy.socketPath],
    argv: forwardedArgv(proxy.node ?? process.execPath, proxy.socketPath, argv),
  };
}
