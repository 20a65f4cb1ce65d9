import { fileURLToPath } from "node:url";
import type { PolicyCheckArgv } from "./commands/policy-check-argv.js";
import { loadCachedScript } from "./load-cached-script.js";

type PolicyCheckBundle = typeof import("./policy-check-main.js");

/**
 * The built CLI's `runPolicyCheck` (scripts/bundle.mjs makes this module
 * dist/src/cli/bin/policy-check-main.js, which main.js imports): it runs policy-check-main.ts
 * from its CommonJS bundle beside it, bin/policy-check.cjs, through V8's code cache
 * (load-cached-script.ts), and writes the cache after the answer when there was no usable
 * entry. The sources (and the suite) import policy-check-main.ts directly.
 *
 * @example
 * ```ts
 * const argv = process.argv.slice(2);
 * process.exitCode = await runPolicyCheck({ tool: "run_command", args: '{"command":"ls"}', json: false }, argv);
 * ```
 */
export async function runPolicyCheck(
  check: PolicyCheckArgv,
  argv: readonly string[],
): Promise<number> {
  const bundle = loadCachedScript<PolicyCheckBundle>(
    fileURLToPath(new URL("./policy-check.cjs", import.meta.url)),
  );
  // V8 rejects a cache made after a flag changed: tree-sitter's --liftoff-only comes after it.
  const code = await bundle.exports.runPolicyCheck(check, argv, { beforeV8Flags: bundle.snapshot });
  bundle.save();
  return code;
}
