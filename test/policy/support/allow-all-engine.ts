import { docketProtection } from "../../../src/cli/docket-protection.js";
import { loadPolicyFiles } from "../../../src/config/load-policy-files.js";
import type { PolicyVerdict } from "../../../src/policy/policy.js";
import { createPolicyEngine, type DocketPolicyEngine } from "../../../src/policy/policy-engine.js";
import { SELF_PROTECTION_RULE } from "../../../src/policy/self-protection-vote.js";

/**
 * A policy engine that allows every call (a managed rule and a session grant), with docket's
 * self-protection for a workspace and a home folder: what it denies, only self-protection did.
 */
export function allowAllEngine({
  home,
  workspace,
}: {
  home: string;
  workspace: string;
}): Promise<DocketPolicyEngine> {
  const layers = [
    ...loadPolicyFiles({ projectFile: false, env: { HOME: home }, cwd: workspace }),
    { name: "managed", rules: [{ decision: "allow" as const, tool: "*", reason: "allow all" }] },
  ];
  return createPolicyEngine({
    layers,
    workspace,
    home,
    protection: docketProtection({ layers, workspace, cwd: workspace, env: { HOME: home } }),
  }).then((engine) => {
    engine.grant({ decision: "allow", tool: "*" });
    return engine;
  });
}

/** Whether a verdict is self-protection's deny. */
export const deniedBySelfProtection = (verdict: PolicyVerdict): boolean =>
  verdict.decision === "deny" && verdict.rule === SELF_PROTECTION_RULE;
