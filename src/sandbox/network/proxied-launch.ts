import type { SandboxNetwork } from "../sandbox-settings.js";
import { isNetworkFilter, type SandboxNetworkFilter } from "./network-filter.js";
import { listenerArgv, proxyEnv } from "./sandbox-listener.js";
import { visibleNode } from "./visible-node.js";

/**
 * A running proxy a launch is pointed at. The launch must be spawned with an IPC channel on fd 3
 * (`stdio: [..., "ipc"]`) and given to `SandboxNetwork.attach`.
 */
export interface LaunchProxy {
  /**
   * The Node.js binary for the bootstrap (default: docket's own). Bound read-only into the
   * sandbox at its path, or through a link or copy where the sandbox's user cannot reach it
   * (`visibleNode`).
   */
  readonly node?: string;
}

/** What a filtered network adds to a launch, or why it cannot start. */
export type ProxiedLaunch =
  | {
      readonly status: "ready";
      /** What bubblewrap is told: a filter is a network namespace of its own, as `none`. */
      readonly network: SandboxNetwork;
      readonly env: Readonly<Record<string, string>>;
      readonly argv: readonly string[];
      /**
       * Files bound read-only at their own path: the bootstrap's Node.js binary, which may sit
       * where the sandbox shows nothing of the host (a Node unpacked under /tmp, whose /tmp is
       * the sandbox's own).
       */
      readonly readOnly: readonly string[];
    }
  | { readonly status: "refused"; readonly reason: string };

/**
 * The launch's part of a filtered network: with `none`, `loopback` or `all` nothing changes;
 * with a filter the sandbox gets no network but its loopback, the proxy variables, and the
 * bootstrap before the command, which hands docket a socket listening on that loopback; `writable`
 * (real paths) are the folders the launch binds writable. A filter without a running
 * proxy is refused: the network would be either closed without saying so, or open.
 *
 * @example
 * ```ts
 * proxiedLaunch({ rules: [] }, {}, ["bash", "-c", "npm ci"], ["/work/app"]);
 * // { status: "ready", network: "none", env: { HTTPS_PROXY: "http://127.0.0.1:3128", … }, … }
 * ```
 */
export function proxiedLaunch(
  network: SandboxNetwork | SandboxNetworkFilter,
  proxy: LaunchProxy | undefined,
  argv: readonly string[],
  writable: readonly string[] = [],
): ProxiedLaunch {
  if (!isNetworkFilter(network)) return { status: "ready", network, env: {}, argv, readOnly: [] };
  if (proxy === undefined) {
    return {
      status: "refused",
      reason:
        "Refused: sandbox.network lists hosts, but no network proxy was started for this launch.",
    };
  }
  // The Node.js it runs never lies where the command may write (a TMPDIR inside the workspace).
  const node = visibleNode(proxy.node ?? process.execPath, { writable });
  if (node.status === "refused") return node;
  return {
    status: "ready",
    network: "none",
    env: proxyEnv(),
    argv: listenerArgv(node.path, argv),
    readOnly: [node.path],
  };
}
