import type { OwnFile } from "../protect/docket-own-files.js";
import type { PolicyVote } from "./policy-vote.js";

/** The rule id of the vote no policy can override. */
export const SELF_PROTECTION_RULE = "docket:self-protection";

/**
 * The self-protection vote's deny of a tool naming one of docket's own files, in words that say
 * what was named and why no policy can allow it.
 *
 * @example
 * ```ts
 * deny("~/.config/docket/policy.yaml", { path: "/h/.config/docket/policy.yaml", kind: "file", what: "docket's user policy" });
 * ```
 */
export function deny(
  text: string,
  hit: OwnFile,
  access: "use" | "change" | "hold" | "copy" | "unpack" = "use",
): PolicyVote {
  const reasons = {
    use: `'${text}' is ${hit.what}: docket protects its own files, so no tool may read or write them, whatever the policy allows.`,
    change: `'${text}' is ${hit.what}: docket protects its own code, so no tool may change it, whatever the policy allows.`,
    copy: `'${text}' holds ${hit.what}: docket protects its own files, so no tool may copy, archive or search a folder holding them whole, whatever the policy allows.`,
    unpack: `'${text}' unpacks files into a folder holding ${hit.what}: docket protects its own files, so no tool may unpack an archive or a git tree over them, whatever the policy allows.`,
    hold: `'${text}' holds ${hit.what}: docket protects its own files, so no tool may move, replace or remove a folder holding them, whatever the policy allows.`,
  };
  return {
    decision: "deny",
    rule: SELF_PROTECTION_RULE,
    layer: "docket",
    order: Number.MIN_SAFE_INTEGER,
    reason: reasons[access],
    approvers: undefined,
    matched: [`${JSON.stringify(text)} is ${hit.what} (${hit.path})`],
  };
}

/**
 * The self-protection vote's deny of a command that runs docket itself.
 *
 * @example
 * ```ts
 * denyCli({ command: "docket approvals approve a1", word: "docket" });
 * ```
 */
export function denyCli(found: { readonly command: string; readonly word: string }): PolicyVote {
  return {
    decision: "deny",
    rule: SELF_PROTECTION_RULE,
    layer: "docket",
    order: Number.MIN_SAFE_INTEGER,
    reason: `the command runs docket itself ('${found.word}'): an agent may not drive docket (approvals, policy, audit, store) from its own tools, whatever the policy allows.`,
    approvers: undefined,
    matched: [`command ${JSON.stringify(found.command)} runs docket`],
    command: found.command,
  };
}
