import type { PolicyFunction, PolicyRequest, PolicyVerdict } from "../policy/policy.js";
import { isThenable } from "../shared/is-thenable.js";
import { unsealHandler } from "../tool/handler-seal.js";
import { sanitiseError } from "./sanitise-error.js";

function ceiling(request: PolicyRequest, verdict: PolicyVerdict | undefined) {
  const predicate = unsealHandler(request.tool)?.needsApproval;
  // Only an allow can be raised; deny and ask already stop the call for a human or for good.
  if (!predicate || verdict?.decision !== "allow") return verdict;
  const name = request.tool.name;
  let asks: boolean;
  try {
    asks = predicate(request.args) === true;
  } catch (error) {
    // A ceiling that cannot be judged has not let the call through.
    return {
      decision: "deny" as const,
      rule: `tool:${name}.needsApproval`,
      layer: "tool",
      reason: `the tool's needsApproval check failed (${sanitiseError(error)})`,
    };
  }
  if (!asks) return verdict;
  return {
    decision: "ask" as const,
    rule: `tool:${name}.needsApproval`,
    layer: "tool",
    reason: `${name}'s needsApproval check asks a human for these arguments`,
  };
}

/**
 * Apply the tools' typed ceilings (`defineTool({ needsApproval })`) on top of the policy: when
 * the policy allows a call and the tool's predicate says true for its validated arguments, the
 * call is asked instead. The predicate can only make a decision stricter, like a CEL `when` on an
 * ask rule; a predicate that throws denies the call.
 *
 * @example
 * ```ts
 * import { toPolicyFunction } from "../policy/policy.js";
 * import { withConfinement } from "./confine-verdict.js";
 * declare const options: import("./checkpoint-options.js").CheckpointOptions;
 * const decide = withConfinement(withToolCeilings(toPolicyFunction(options.policy)));
 * ```
 */
export function withToolCeilings(decide: PolicyFunction): PolicyFunction {
  return (request) => {
    const verdict = decide(request);
    return isThenable(verdict)
      ? Promise.resolve(verdict).then((answer) => ceiling(request, answer) as PolicyVerdict)
      : (ceiling(request, verdict) as PolicyVerdict);
  };
}
