import type { CompiledRule } from "./compiled-rule.js";
import type { Decision } from "./policy.js";

/** One matching rule's say in a decision. */
export interface PolicyVote {
  readonly decision: Decision;
  readonly rule: string;
  readonly layer: string;
  /** Sort key: the strongest layer, then the first rule, decides among equal votes. */
  readonly order: number;
  readonly reason: string | undefined;
  readonly approvers: readonly string[] | undefined;
  /** What matched, one entry per matcher, e.g. `tool "read_file"`, `path "/ws/.env" ~ "**\/.env"`. */
  readonly matched: readonly string[];
  /** For a vote from shell analysis: the sub-command that decided. */
  readonly command?: string;
  /** For a vote from shell analysis: the analyser's account. */
  readonly detail?: string;
}

/**
 * A vote cast by a rule whose matchers all matched.
 *
 * @example
 * ```ts
 * declare const rule: import("./compiled-rule.js").CompiledRule; // project:0, a deny
 * voteOf(rule, ['tool "read_file"']); // { decision: "deny", rule: "project:0", ... }
 * ```
 */
export function voteOf(
  rule: CompiledRule,
  texts: readonly string[],
  extra?: { command?: string; detail?: string },
): PolicyVote {
  const vote: PolicyVote = {
    decision: rule.decision,
    rule: rule.id,
    layer: rule.layer,
    order: rule.order,
    reason: rule.reason,
    approvers: rule.approvers,
    matched: texts,
  };
  return extra === undefined ? vote : { ...vote, ...extra };
}
