import type { PolicyFunction, PolicyVerdict } from "../policy/policy.js";
import { isThenable } from "../shared/is-thenable.js";
import type { Tool } from "../tool/tool.js";

/**
 * Apply a tool's confinement to the policy's verdict: a tool whose processes would run outside
 * a sandbox (`unconfined`) is never allowed by a rule alone, so allow becomes ask and the
 * approver reads "not sandboxed"; a `refused` tool (sandbox required, none available) is denied
 * with the reason. Anything that is not a verdict is passed on for the decide step to refuse.
 *
 * @example
 * ```ts
 * declare const tool: import("../tool/tool.js").Tool;
 * confineVerdict(tool, { decision: "allow", rule: "r1" });
 * // with tool.confinement = { status: "unconfined", reason: "bubblewrap … is not installed" }:
 * // { decision: "ask", rule: "r1", reason: "not sandboxed: bubblewrap … is not installed; …" }
 * ```
 */
export function confineVerdict(tool: Tool, verdict: PolicyVerdict): PolicyVerdict {
  const confinement = tool.confinement;
  if (typeof verdict !== "object" || verdict === null || confinement === undefined) return verdict;
  if (confinement.status === "refused" && verdict.decision !== "deny") {
    return {
      decision: "deny",
      rule: "sandbox:required",
      layer: "sandbox",
      reason: confinement.reason,
    };
  }
  if (confinement.status === "unconfined" && verdict.decision === "allow") {
    const by = verdict.rule ? `rule ${verdict.rule} allows it, but ` : "";
    return {
      ...verdict,
      decision: "ask",
      reason: `not sandboxed: ${confinement.reason}. ${by}a command that would run with docket's own powers needs a human's approval`,
    };
  }
  return verdict;
}

/**
 * Wrap a policy function so every verdict passes through `confineVerdict`.
 *
 * @example
 * ```ts
 * import { toPolicyFunction } from "../policy/policy.js";
 * declare const options: import("./checkpoint-options.js").CheckpointOptions;
 * const decide = withConfinement(toPolicyFunction(options.policy));
 * ```
 */
export function withConfinement(decide: PolicyFunction): PolicyFunction {
  return (request) => {
    const verdict = decide(request);
    return isThenable(verdict)
      ? Promise.resolve(verdict).then((answer) => confineVerdict(request.tool, answer))
      : confineVerdict(request.tool, verdict);
  };
}
