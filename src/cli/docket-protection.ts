import { join } from "node:path";
import type { SelfProtection } from "../policy/self-protection-vote.js";
import { type RuntimeFiles, runtimeOwnFiles } from "../protect/runtime-own-files.js";
import { packageRoot } from "./package-root.js";

/**
 * What docket protects from every tool when it runs from the CLI: its own files (see
 * `runtimeOwnFiles`) and its own CLI, so that no `run_command` can drive `docket approvals`.
 *
 * @example
 * ```ts
 * const protection = docketProtection({ storeUrl, configFile: "docket.yaml", layers, workspace });
 * const engine = await createPolicyEngine({ layers, workspace, protection });
 * ```
 */
export function docketProtection(files: RuntimeFiles): SelfProtection {
  const root = packageRoot().dir;
  return {
    ownFiles: runtimeOwnFiles(files),
    cliPaths: [join(root, "src", "cli"), join(root, "dist", "src", "cli")],
  };
}
