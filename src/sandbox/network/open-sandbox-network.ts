import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import type { SandboxSettings } from "../sandbox-settings.js";
import type { NetworkApprover, NetworkConnection } from "./network-connection.js";
import { isNetworkFilter } from "./network-filter.js";
import { startNetworkProxy } from "./network-proxy.js";
import { compileNetworkRules } from "./network-rules.js";
import type { LaunchProxy } from "./proxied-launch.js";

/** A launch's network proxy while it runs; `proxy` is undefined when the setting is no filter. */
export interface SandboxNetwork {
  readonly proxy: LaunchProxy | undefined;
  /** Stops the proxy, ending and reporting open connections. Safe to call twice. */
  close(): Promise<void>;
}

/** Where connections are reported and asks answered. */
export interface SandboxNetworkHooks {
  readonly onConnection: (connection: NetworkConnection) => void;
  readonly approve?: NetworkApprover | undefined;
}

/**
 * Start the filtering proxy for one sandboxed launch (a `run_command` call, an MCP server) when
 * `settings.network` is a filter: a Unix socket in a fresh 0700 folder, its connections decided by
 * the filter's rules and reported through `hooks`. Give `proxy` to `planSandboxLaunch` and
 * `close` it when the process has ended.
 *
 * @example
 * ```ts
 * const network = await openSandboxNetwork(settings, { onConnection: (c) => ctx.log?.("network connection", c) });
 * try { planSandboxLaunch({ workspace, argv, settings, networkProxy: network.proxy }); … }
 * finally { await network.close(); }
 * ```
 */
export async function openSandboxNetwork(
  settings: SandboxSettings,
  hooks: SandboxNetworkHooks,
): Promise<SandboxNetwork> {
  const filter = settings.network;
  if (!isNetworkFilter(filter)) return { proxy: undefined, close: async () => {} };
  const decide = compileNetworkRules(filter.rules);
  const dir = mkdtempSync(path.join(tmpdir(), "docket-net-"));
  try {
    const proxy = await startNetworkProxy({
      socketPath: path.join(dir, "proxy.sock"),
      decide,
      onConnection: hooks.onConnection,
      approve: hooks.approve,
      ...(filter.askTimeoutMs === undefined ? {} : { askTimeoutMs: filter.askTimeoutMs }),
      destination: { hosts: filter.hosts ?? {} },
    });
    let closing: Promise<void> | undefined;
    return {
      proxy: { socketPath: proxy.socketPath },
      close: () => {
        closing ??= proxy.close().finally(() => rmSync(dir, { recursive: true, force: true }));
        return closing;
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
