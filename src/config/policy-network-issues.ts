import { compileHostPattern } from "../policy/host-pattern.js";
import type { PolicyIssue } from "../policy/policy-issue.js";

const DECISIONS = ["allow", "ask", "deny"] as const;

/**
 * The problems of a policy layer's `network:` section (ADR 0052): a mapping of `allow`, `ask`
 * and `deny`, each a list of host patterns as policy `host` rules take them. Each issue's path
 * starts at `network`, so the caller's message names the file and line.
 *
 * @example
 * ```ts
 * policyNetworkIssues({ deny: ["pastebin.com"], allow: ["*.x*"] });
 * // [{ path: ["network", "allow", 0], message: 'bad host pattern "*.x*": …' }]
 * ```
 */
export function policyNetworkIssues(value: unknown): PolicyIssue[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return [{ path: ["network"], message: "expected a mapping with allow, ask and/or deny" }];
  }
  const issues: PolicyIssue[] = [];
  for (const [key, list] of Object.entries(value)) {
    if (!(DECISIONS as readonly string[]).includes(key)) {
      issues.push({
        path: ["network", key],
        message: "unknown key (network has allow, ask, deny)",
      });
      continue;
    }
    if (!Array.isArray(list)) {
      issues.push({ path: ["network", key], message: "expected a list of host patterns" });
      continue;
    }
    list.forEach((pattern: unknown, index) => {
      if (typeof pattern !== "string") {
        issues.push({ path: ["network", key, index], message: "expected a host pattern" });
        return;
      }
      try {
        compileHostPattern(pattern);
      } catch (error) {
        issues.push({ path: ["network", key, index], message: (error as Error).message });
      }
    });
  }
  return issues;
}
