import { buildRuntime, type Runtime } from "../cli/build-runtime.js";
import { hostSettingsFiles } from "./host-settings-files.js";

/** Where a hook's runtime comes from: docket.yaml and the store, as the hook command names them. */
export interface HookRuntimeRequest {
  readonly config?: string | undefined;
  readonly store?: string | undefined;
  readonly env?: NodeJS.ProcessEnv | undefined;
}

/**
 * The runtime every part of hook mode opens (a hook call, `docket hook serve`, `docket hook exec`):
 * no terminal, no built-in tools, no MCP connections, approvals waited for, and the hosts'
 * settings that register docket counted among docket's own files, so the policy and the sandbox
 * keep them from every tool.
 *
 * @example
 * ```ts
 * const runtime = await openHookRuntime({ config: "docket.yaml" });
 * try { runtime.sandbox; } finally { await runtime.close(); }
 * ```
 */
export function openHookRuntime({ config, store, env }: HookRuntimeRequest): Promise<Runtime> {
  return buildRuntime({
    config,
    store,
    terminal: false,
    builtins: false,
    connectMcp: false,
    approvalMode: "wait",
    alsoOwn: hostSettingsFiles(),
    ...(env ? { env } : {}),
  });
}
