import type { CompiledRule } from "./compiled-rule.js";
import type { PolicyVote } from "./policy-vote.js";
import { voteOf } from "./policy-vote.js";
import { type JudgeOptions, judgeShell, type ShellRule } from "./shell/judge-shell.js";
import type { ShellAnalysis } from "./shell/shell-analysis.js";

/** A `command` rule whose other matchers matched the call. */
export interface ShellCandidate {
  readonly rule: CompiledRule;
  readonly texts: readonly string[];
}

/** The rule id given to an ask that comes from the analysis itself, not from a rule. */
export const UNCERTAIN_RULE = "shell:uncertain";

/**
 * Judge the call's command argument with every matching `command` rule at once (so allow rules
 * from different layers together can cover a compound command) and turn the result into at most
 * one vote. Deny if any sub-command matches a deny rule; allow only if every sub-command is
 * covered by an allow rule and nothing was uncertain; what cannot be analysed is at least ask;
 * `none` casts no vote, leaving the decision to other rules or the default.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell/shell-parser.js";
 * declare const candidates: readonly ShellCandidate[]; // a deny rule on `rm *` among them
 * const parser = await loadShellParser();
 * shellVote(candidates, "ls; rm -rf /", (script) => parser.analyse(script))?.decision; // "deny"
 * ```
 */
export function shellVote(
  candidates: readonly ShellCandidate[],
  command: unknown,
  analyse: (script: string) => ShellAnalysis,
  options: JudgeOptions = {},
): PolicyVote | undefined {
  const analysis = analyseValue(command, analyse);
  const rules: ShellRule[] = [];
  const byId = new Map<string, ShellCandidate>();
  for (const candidate of candidates) {
    if (candidate.rule.shell === undefined) continue;
    rules.push(candidate.rule.shell.rule);
    byId.set(candidate.rule.id, candidate);
  }
  const verdict = judgeShell(analysis, rules, options);
  if (verdict.decision === "none") return undefined;
  const extra = {
    ...(verdict.command === undefined ? {} : { command: verdict.command }),
    detail: verdict.explanation,
  };
  const decided = verdict.rule === undefined ? undefined : byId.get(verdict.rule);
  if (decided !== undefined && decided.rule.decision === verdict.decision) {
    const sub = verdict.command === undefined ? [] : [`command ${JSON.stringify(verdict.command)}`];
    return voteOf(decided.rule, [...decided.texts, ...sub], extra);
  }
  // An ask the analysis raised itself (eval, `$(…)` in command position, a parse error, …).
  const first = verdict.uncertainties[0];
  return {
    decision: verdict.decision,
    rule: UNCERTAIN_RULE,
    layer: "shell",
    // After every real rule: an ask rule that also matched decides in its place.
    order: Number.MAX_SAFE_INTEGER,
    reason: `the command cannot be analysed with confidence${first === undefined ? "" : ` (${first.reason}: ${first.detail})`}, so a human must approve it`,
    approvers: undefined,
    matched: [`command ${JSON.stringify(typeof command === "string" ? command : String(command))}`],
    ...extra,
  };
}

function analyseValue(command: unknown, analyse: (script: string) => ShellAnalysis): ShellAnalysis {
  if (typeof command !== "string") {
    return {
      commands: [],
      uncertainties: [
        { reason: "analysis_failed", text: "", detail: "the command argument is not a string" },
      ],
    };
  }
  return analyse(command);
}
