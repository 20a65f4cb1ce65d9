import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { type ApproverDirectory, createApproverDirectory } from "../approval/approver-directory.js";
import { type DocketConfig, loadConfig } from "../config/load-config.js";
import { type RuntimeConfig, readRuntimeConfig } from "../config/runtime-config.js";
import { resolveStoreUrl } from "../store/resolve-store-url.js";

/** docket.yaml as a command needs it: the file (if any), its runtime sections, approvers, store URL. */
export interface CliConfig {
  readonly config: DocketConfig | undefined;
  readonly runtime: RuntimeConfig;
  readonly directory: ApproverDirectory;
  readonly storeUrl: string;
}

/**
 * Load `--config FILE`, or `./docket.yaml` when it exists, or nothing (defaults). A named file
 * that does not load stops the command with the file, line and reason.
 *
 * @example
 * ```ts
 * const { runtime, storeUrl } = loadCliConfig({ config: options.config, store: options.store });
 * ```
 */
export function loadCliConfig(
  flags: { config?: string | undefined; store?: string | undefined },
  env: NodeJS.ProcessEnv = process.env,
): CliConfig {
  const file = flags.config ?? (existsSync(resolve("docket.yaml")) ? "docket.yaml" : undefined);
  const config = file === undefined ? undefined : loadConfig(file);
  const runtime = readRuntimeConfig(config);
  return {
    config,
    runtime,
    directory: createApproverDirectory(runtime.approvers, env),
    storeUrl: resolveStoreUrl({ flag: flags.store, config: runtime.store, env }),
  };
}
