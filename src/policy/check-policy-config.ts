import { homedir } from "node:os";
import { compileLayers } from "./compile-layers.js";
import type { PolicyConfig } from "./policy.js";

const checked = new WeakSet<PolicyConfig>();

/**
 * Compile a plain `{ rules }` policy now, where the checkpoint or harness is created: a rule
 * that does not compile (a CEL typo, a bad glob) throws `DocketError("policy_invalid")` naming
 * the rule and the cause, instead of refusing every later call with "could not decide". A rule
 * whose tool globs match none of the given tools is most likely a typo: it is reported as a
 * Node warning (code `DOCKET_POLICY_UNKNOWN_TOOL`), not an error, since tools can arrive later
 * (MCP menus). Returns the warnings it emitted.
 *
 * @example
 * ```ts
 * checkPolicyConfig({ rules: [{ decision: "deny", tool: "refnd", reason: "typo" }] }, ["refund"]);
 * // emits a warning: rule rules[0] names tool "refnd", which no tool of this checkpoint matches
 * ```
 */
export function checkPolicyConfig(
  policy: PolicyConfig,
  toolNames: readonly string[] | undefined,
): string[] {
  // A harness creates a checkpoint per run: check (and warn about) one policy object once.
  if (checked.has(policy)) return [];
  const compiled = compileLayers([{ name: "project", ...policy }], { home: homedir() });
  if (toolNames === undefined) return [];
  const warnings: string[] = [];
  for (const rule of compiled.rules) {
    if (rule.tools.some((glob) => toolNames.some((name) => glob.test(name)))) continue;
    const globs = rule.tools.map((glob) => JSON.stringify(glob.text)).join(", ");
    const message = `policy rule ${rule.id} names tool ${globs}, which no tool of this checkpoint matches (tools: ${toolNames.slice(0, 20).join(", ") || "none"}); check the spelling.`;
    warnings.push(message);
    process.emitWarning(message, { code: "DOCKET_POLICY_UNKNOWN_TOOL" });
  }
  checked.add(policy);
  return warnings;
}
