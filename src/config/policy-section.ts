import { homedir } from "node:os";
import { compileLayers } from "../policy/compile-layers.js";
import { throwIssues } from "../policy/policy-issue.js";
import type { LayerSource, PolicyLayer } from "../policy/policy-rule.js";

const SECTION_KEYS = ["defaults", "rules"];

/**
 * Turn the value of a `policy:` section into a layer and check it completely (shape, decisions,
 * globs, CEL, host and shell patterns) so a bad file fails when it is loaded, naming its file
 * and line. Throws `DocketError("policy_invalid")`.
 *
 * @example
 * ```ts
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
      [{ path: [], message: "policy: expected a mapping with defaults and/or rules" }],
      where,
    );
  }
  const section = value as Record<string, unknown>;
  const unknown = Object.keys(section).filter((key) => !SECTION_KEYS.includes(key));
  if (unknown.length > 0) {
    throwIssues(
      unknown.map((key) => ({
        path: [key],
        message: "unknown key (policy has defaults and rules)",
      })),
      where,
    );
  }
  const layer: PolicyLayer = {
    name: options.name,
    ...(section.defaults === undefined
      ? {}
      : { defaults: section.defaults as PolicyLayer["defaults"] }),
    ...(section.rules === undefined ? {} : { rules: section.rules as PolicyLayer["rules"] }),
    source: options.source,
  };
  // Compile once now only to report problems at load; the engine compiles its own copy.
  compileLayers([layer], { home: options.home ?? homedir() });
  return layer;
}
