import { resolve } from "node:path";
import { loadPolicyFiles } from "../config/load-policy-files.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../policy/policy-engine.js";
import type { PolicyLayer } from "../policy/policy-rule.js";
import type { SelfProtection } from "../policy/self-protection-vote.js";
import type { RuntimeFiles } from "../protect/runtime-own-files.js";
import { docketProtection } from "./docket-protection.js";
import type { CliConfig } from "./load-cli-config.js";

/** A policy as a runtime builds it from docket.yaml and the policy files. */
export interface RuntimePolicy {
  readonly layers: readonly PolicyLayer[];
  readonly protection: SelfProtection;
  readonly engine: DocketPolicyEngine;
  /** Every file it was read from, absolute: docket.yaml and each policy file. */
  readonly files: readonly string[];
}

/** How the policy is built besides the config: as `buildRuntime`'s request says. */
export interface RuntimePolicyOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly alsoOwn?: RuntimeFiles["alsoOwn"];
  readonly shellParser?: "at-start" | "when-needed";
}

/**
 * Build the policy of a loaded config: layers (managed, user, project), self-protection and the
 * engine. At start and at every reload alike, so a reloaded policy is the one a restart would
 * give. Throws `DocketError` (file, line, reason) when a file does not load.
 *
 * @example
 * ```ts
 * import { loadCliConfig } from "./load-cli-config.js";
 * const { engine, files } = await loadRuntimePolicy(loadCliConfig({}), { env: process.env });
 * ```
 */
export async function loadRuntimePolicy(
  cli: CliConfig,
  { env, alsoOwn, shellParser = "when-needed" }: RuntimePolicyOptions,
): Promise<RuntimePolicy> {
  const layers = loadPolicyFiles({
    projectFile: cli.projectFile ?? false,
    projectConfig: cli.config,
    env,
  });
  const protection = docketProtection({
    storeUrl: cli.storeUrl,
    ...(cli.projectFile === undefined ? {} : { configFile: cli.projectFile }),
    layers,
    sections: cli.config?.sections ?? {},
    workspace: cli.workspace,
    env,
    ...(alsoOwn ? { alsoOwn } : {}),
  });
  const engine = await createPolicyEngine({
    layers,
    workspace: cli.workspace,
    protection,
    shellParser,
  });
  const files = new Set<string>();
  if (cli.projectFile !== undefined) files.add(resolve(cli.projectFile));
  for (const layer of layers) if (layer.source) files.add(resolve(layer.source.file));
  return { layers, protection, engine, files: [...files] };
}
