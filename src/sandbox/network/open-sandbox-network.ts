import type { ChildProcess } from "node:child_process";
import type { SandboxSettings } from "../sandbox-settings.js";
import { effectiveNetwork } from "./effective-network.js";
import type { NetworkApprover, NetworkCall, NetworkConnection } from "./network-connection.js";
import { isNetworkFilter } from "./network-filter.js";
import { createNetworkProxy } from "./network-proxy.js";
import { compileNetworkRules } from "./network-rules.js";
import type { LaunchProxy } from "./proxied-launch.js";
import { receiveListener } from "./sandbox-listener.js";

/** A launch's network proxy; `proxy` is undefined when the setting is no filter. */
export interface SandboxNetwork {
  readonly proxy: LaunchProxy | undefined;
  /** Take the sandbox's listening socket from the spawned launch (spawned with fd 3 `ipc`). */
  attach(child: ChildProcess): void;
  /** Stops the proxy, ending and reporting open connections. Safe to call twice. */
  close(): Promise<void>;
}

/** Where connections are reported and asks answered. */
export interface SandboxNetworkHooks {
  readonly onConnection: (connection: NetworkConnection) => void;
  readonly approve?: NetworkApprover | undefined;
  /** The call the launch runs for: its asks are bound to it (and its session) by the approver. */
  readonly call?: NetworkCall | undefined;
}

/**
 * Make the filtering proxy for one sandboxed launch (a `run_command` call, an MCP server) when
 * `settings.network` is a filter, its connections decided by the filter's rules and reported
 * through `hooks`. Give `proxy` to `planSandboxLaunch`, spawn with `stdio[3]: "ipc"`, `attach`
 * the child, and `close` when the process has ended.
 *
 * @example
 * ```ts
 * import { spawn } from "node:child_process";
 * import { planSandboxLaunch } from "../sandbox-launch.js";
 * declare const settings: import("../sandbox-settings.js").SandboxSettings;
 * declare const ctx: import("../../tool/tool.js").ToolContext; // the call's context
 * const network = openSandboxNetwork(settings, { onConnection: (c) => ctx.log("network connection", c) });
 * const plan = planSandboxLaunch({ workspace: "/ws", argv: ["npm", "ci"], settings, networkProxy: network.proxy });
 * if (plan.status === "ready") network.attach(spawn(plan.file, plan.args, { stdio: ["ignore", "pipe", "pipe", "ipc"] }));
 * ```
 */
export function openSandboxNetwork(
  settings: SandboxSettings,
  hooks: SandboxNetworkHooks,
): SandboxNetwork {
  // The policy's layers vote too (ADR 0052): an `all` they restrict is a filter here.
  const filter = effectiveNetwork(settings);
  if (!isNetworkFilter(filter)) {
    return { proxy: undefined, attach: () => {}, close: async () => {} };
  }
  const proxy = createNetworkProxy({
    decide: compileNetworkRules(filter.rules),
    onConnection: hooks.onConnection,
    approve: hooks.approve,
    call: hooks.call,
    ...(filter.askTimeoutMs === undefined ? {} : { askTimeoutMs: filter.askTimeoutMs }),
    destination: { hosts: filter.hosts ?? {} },
  });
  let closing: Promise<void> | undefined;
  return {
    proxy: {},
    attach: (child) => receiveListener(child, (listener) => proxy.adopt(listener)),
    close: () => {
      closing ??= proxy.close();
      return closing;
    },
  };
}
