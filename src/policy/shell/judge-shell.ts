/**
 * Judges an analysed script against `command` rules: every simple command gets the strictest
 * decision among the rules matching it, and the script gets the strictest over its commands,
 * with one more rule: what the analysis could not resolve is never allowed.
 */
import { type CommandPattern, matchesCommand } from "./command-pattern.js";
import { commandNotRead } from "./read-only-script.js";
import { seesThrough } from "./see-through-wrappers.js";
import type { ShellAnalysis, SimpleCommand, Uncertainty } from "./shell-analysis.js";

/** A rule with `command` patterns, as the policy engine hands it over. */
export interface ShellRule {
  id: string;
  decision: "allow" | "ask" | "deny";
  patterns: CommandPattern[];
}

/** How commands no rule names count. */
export interface JudgeOptions {
  /**
   * Count a command proven read-only (read-only-programs.ts) as covered, so that `echo ok &&
   * npm test` is allowed where `npm test` is: set by the engine only where reads are allowed by
   * default and the tool decides per call whether it writes (`run_command`).
   */
  readonly readsCovered?: boolean;
}

/** The verdict on a whole script, with what decided it. */
export interface ShellVerdict {
  /** `none`: no rule matched some command and nothing was uncertain; the engine's default applies. */
  decision: "allow" | "ask" | "deny" | "none";
  /** The rule that decided, when one did. */
  rule?: string;
  /** The sub-command (source text) that decided. */
  command?: string;
  explanation: string;
  uncertainties: Uncertainty[];
}

const STRICTNESS = { none: 0, allow: 1, ask: 2, deny: 3 } as const;

interface CommandVerdict {
  command: SimpleCommand;
  decision: ShellRule["decision"] | "none";
  rule?: ShellRule;
  pattern?: CommandPattern;
}

function judgeCommand(command: SimpleCommand, rules: readonly ShellRule[]): CommandVerdict {
  let verdict: CommandVerdict = { command, decision: "none" };
  for (const rule of rules) {
    if (STRICTNESS[rule.decision] <= STRICTNESS[verdict.decision]) continue;
    const mode = rule.decision === "allow" ? "allow" : "restrict";
    const pattern = rule.patterns.find((p) => matchesCommand(p, command, mode));
    if (pattern !== undefined) verdict = { command, decision: rule.decision, rule, pattern };
  }
  return verdict;
}

/** A command no rule named that needs none: a see-through wrapper, or a read where reads count. */
function coveredUnnamed(command: SimpleCommand, options: JudgeOptions): boolean {
  if (seesThrough(command)) return true;
  return options.readsCovered === true && commandNotRead(command) === undefined;
}

function describe(command: SimpleCommand): string {
  const via = command.via.length > 0 ? ` (via ${command.via.join(", ")})` : "";
  return `${JSON.stringify(command.text)}${via}`;
}

function matched(verdict: CommandVerdict): string {
  return `${describe(verdict.command)} matches ${JSON.stringify(verdict.pattern?.source ?? "")} of rule ${JSON.stringify(verdict.rule?.id ?? "")}`;
}

function withRule(base: ShellVerdict, rule: ShellRule | undefined): ShellVerdict {
  if (rule !== undefined) base.rule = rule.id;
  return base;
}

/**
 * Judge an analysis against rules. Deny wins; then anything uncertain makes the verdict at least
 * `ask`; then `ask`; `allow` only when every command matched an allow rule, a see-through
 * wrapper (see-through-wrappers.ts) counting as matched when no rule named it, since the
 * commands it runs were judged themselves; otherwise `none`.
 *
 * @example
 * ```ts
 * import { compileCommandPattern } from "./command-pattern.js";
 * import { loadShellParser } from "./shell-parser.js";
 * const shell = await loadShellParser();
 * const rules = [
 *   { id: "read", decision: "allow", patterns: [compileCommandPattern("ls *")] },
 *   { id: "no-rm", decision: "deny", patterns: [compileCommandPattern("rm *")] },
 * ] satisfies ShellRule[];
 * judgeShell(shell.analyse("ls; rm -rf /"), rules).decision; // "deny"
 * judgeShell(shell.analyse("ls -la"), rules).decision;        // "allow"
 * ```
 */
export function judgeShell(
  analysis: ShellAnalysis,
  rules: readonly ShellRule[],
  options: JudgeOptions = {},
): ShellVerdict {
  const { commands, uncertainties } = analysis;
  const verdicts = commands.map((command) => judgeCommand(command, rules));
  const denied = verdicts.find((v) => v.decision === "deny");
  if (denied !== undefined) {
    return withRule(
      {
        decision: "deny",
        command: denied.command.text,
        explanation: `denied: ${matched(denied)}`,
        uncertainties,
      },
      denied.rule,
    );
  }
  const asked = verdicts.find((v) => v.decision === "ask");
  const first = uncertainties[0];
  if (first !== undefined) {
    const more = uncertainties.length > 1 ? ` (and ${uncertainties.length - 1} more)` : "";
    const also = asked === undefined ? "" : `; also ${matched(asked)}`;
    const explanation = `needs approval: cannot be analysed with confidence: ${first.reason}: ${first.detail} in ${JSON.stringify(first.text)}${more}${also}`;
    return withRule(
      { decision: "ask", command: asked?.command.text ?? first.text, explanation, uncertainties },
      asked?.rule,
    );
  }
  if (asked !== undefined) {
    return withRule(
      {
        decision: "ask",
        command: asked.command.text,
        explanation: `needs approval: ${matched(asked)}`,
        uncertainties,
      },
      asked.rule,
    );
  }
  // A see-through wrapper no rule named (`bash -lc`, `timeout 60`, `xargs`) leaves the decision
  // to the commands it runs; a rule that does name it has voted above like any other.
  const judged = verdicts.filter(
    (v) => v.decision !== "none" || !coveredUnnamed(v.command, options),
  );
  if (judged.length === 0)
    return { decision: "none", explanation: "the script runs no command", uncertainties };
  const unmatched = judged.find((v) => v.decision === "none");
  if (unmatched !== undefined) {
    return {
      decision: "none",
      command: unmatched.command.text,
      explanation: `no rule matched ${describe(unmatched.command)}`,
      uncertainties,
    };
  }
  const [head] = judged as [CommandVerdict, ...CommandVerdict[]];
  const all = judged.map(matched).join("; ");
  const through =
    verdicts.length > judged.length
      ? " (wrappers decided by what they run, reads by the reads default)"
      : "";
  return withRule(
    {
      decision: "allow",
      command: head.command.text,
      explanation: `allowed: every command matches an allow rule${through}: ${all}`,
      uncertainties,
    },
    head.rule,
  );
}

/**
 * Which commands of a script no allow rule covers, as the approval prompt names them (a
 * see-through wrapper is not listed: the commands it runs are).
 */
export interface ShellCoverage {
  /** Commands no rule matched at all: an allow rule for them could let the script run. */
  readonly uncovered: readonly SimpleCommand[];
  /** Commands an ask (or deny) rule matched: an allow rule would not change that. */
  readonly asked: readonly SimpleCommand[];
  /** What the analysis could not vouch for: no rule can allow the script while any is left. */
  readonly uncertainties: readonly Uncertainty[];
}

/**
 * Sort a script's commands by what the rules say of them, for an approver: the ones no rule
 * covered, the ones a stricter rule matched, and the analysis's uncertainties.
 *
 * @example
 * ```ts
 * import { compileCommandPattern } from "./command-pattern.js";
 * import { loadShellParser } from "./shell-parser.js";
 * const shell = await loadShellParser();
 * const rules = [{ id: "git", decision: "allow", patterns: [compileCommandPattern("git status *")] }] satisfies ShellRule[];
 * shellCoverage(shell.analyse("git status && npm test"), rules).uncovered[0]?.text; // "npm test"
 * ```
 */
export function shellCoverage(
  analysis: ShellAnalysis,
  rules: readonly ShellRule[],
  options: JudgeOptions = {},
): ShellCoverage {
  const uncovered: SimpleCommand[] = [];
  const asked: SimpleCommand[] = [];
  for (const command of analysis.commands) {
    const verdict = judgeCommand(command, rules);
    if (verdict.decision === "none") {
      if (!coveredUnnamed(command, options)) uncovered.push(command);
    } else if (verdict.decision !== "allow") asked.push(command);
  }
  return { uncovered, asked, uncertainties: analysis.uncertainties };
}
