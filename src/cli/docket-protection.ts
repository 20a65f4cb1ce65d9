import { join, resolve } from "node:path";
import type { SelfProtection } from "../policy/self-protection-vote.js";
import { docketCodeDirs } from "../protect/docket-code-dir.js";
import { docketOwnFiles } from "../protect/docket-own-files.js";
import { lazyOwnFiles } from "../protect/lazy-own-files.js";
import { type RuntimeFiles, runtimeOwnFiles } from "../protect/runtime-own-files.js";
import { packageRoot } from "./package-root.js";

/**
 * What docket protects from every tool when it runs from the CLI: its own files (see
 * `runtimeOwnFiles`), its own CLI, so that no `run_command` can drive `docket approvals`, and
 * its installed code and the packages it loads, which no tool may change (see `docketCodeDirs`).
 *
 * @example
 * ```ts
 * import { createPolicyEngine } from "../policy/policy-engine.js";
 * declare const layers: import("../policy/policy-rule.js").PolicyLayer[];
 * const storeUrl = "sqlite:.docket/docket.db";
 * const workspace = "/ws";
 * const protection = docketProtection({ storeUrl, configFile: "docket.yaml", layers, workspace });
 * const engine = await createPolicyEngine({ layers, workspace, protection });
 * ```
 */
export function docketProtection(files: RuntimeFiles): SelfProtection {
  const root = packageRoot().dir;
  const workspace = resolve(files.cwd ?? process.cwd(), files.workspace ?? ".");
  return {
    ownFiles: runtimeOwnFiles(files),
    cliPaths: [join(root, "src", "cli"), join(root, "dist", "src", "cli")],
    // Found when a call first writes or names a path: a run that only reads never walks them.
    codeFiles: lazyOwnFiles(() =>
      docketOwnFiles({
        directories: docketCodeDirs(root, workspace).map((dir) => ({
          path: dir,
          what: "docket's installed code or a package it loads",
        })),
        // A bare word (`status`, `source`) names a file of the workspace, not of docket.
        cwd: workspace,
      }),
    ),
  };
}
