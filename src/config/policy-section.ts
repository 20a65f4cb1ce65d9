import { homedir } from "node:os";
import { compileLayers } from "../policy/compile-layers.js";
import { throwIssues } from "../policy/policy-issue.js";
import type { LayerSource, PolicyLayer } from "../policy/policy-rule.js";
import { policyNetworkIssues } from "./policy-network-issues.js";

const SECTION_KEYS = ["defaults", "rules", "network"];

/**
 * Turn the value of a `policy:` section into a layer and check it completely (shape, decisions,
 * globs, CEL, host and shell patterns) so a bad file fails when it is loaded, naming its file
 * and line. Throws `DocketError("policy_invalid")`.
 *
 * @example
 * ```ts
 * declare const value: { policy: unknown }; // the parsed docket.yaml
 * declare const lines: ReadonlyMap<string, number>; // its line per key path
 * const layer = policyLayerFrom(value.policy, { name: "project", source: { file: "docket.yaml", lines } });
 * layer.rules?.length; // 3
 * ```
 */
export function policyLayerFrom(
  value: unknown,
  options: { name: string; source: LayerSource; home?: string },
): PolicyLayer {
  const where = { layer: options.name, source: options.source };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throwIssues(
      [{ path: [], message: "policy: expected a mapping with defaults, rules and/or network" }],
      where,
    );
  }
  const section = value as Record<string, unknown>;
  const unknown = Object.keys(section).filter((key) => !SECTION_KEYS.includes(key));
  if (unknown.length > 0) {
    throwIssues(
      unknown.map((key) => ({
        path: [key],
        message: "unknown key (policy has defaults, rules and network)",
      })),
      where,
    );
  }
  if (section.network !== undefined) {
    const issues = policyNetworkIssues(section.network);
    if (issues.length > 0) throwIssues(issues, where);
  }
  const layer: PolicyLayer = Object.freeze({
    name: options.name,
    ...(section.defaults === undefined
      ? {}
      : { defaults: deepFreeze(section.defaults) as PolicyLayer["defaults"] }),
    ...(section.rules === undefined
      ? {}
      : { rules: deepFreeze(section.rules) as PolicyLayer["rules"] }),
    ...(section.network === undefined
      ? {}
      : { network: deepFreeze(section.network) as PolicyLayer["network"] }),
    source: options.source,
  });
  // Compiled now to report problems at load. Frozen, so the engine that takes this layer next
  // takes this compile too rather than doing it again (the policy is otherwise compiled twice).
  compileLayers([layer], { home: options.home ?? homedir(), keep: true });
  return layer;
}

function deepFreeze(value: unknown): unknown {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
