/**
 * The result of analysing a shell script: every simple command it would run and everything
 * that could not be resolved with confidence. The policy engine judges the commands against
 * `command` rules (see `judge-shell.ts`); an uncertainty keeps an allow rule from allowing.
 */

/** One simple command the script would run, after quote removal. */
export interface SimpleCommand {
  /** The argument vector after quote removal; run-time expansions keep their source text (`$x`). */
  argv: string[];
  /** `argv[0]`: the program as the shell would look it up (`/bin/rm`, `rm`, `./rm`). */
  program: string;
  /** The source slice the command came from (of the nested script for `bash -c` strings). */
  text: string;
  /** Nesting: 0 at top level, +1 per `-c` string, `eval`, here-document fed to a shell or substitution. */
  depth: number;
  /** What it runs through, outermost first, e.g. `["sudo", "bash -c"]` or `["$(…)"]`. */
  via: string[];
  /**
   * Set when the analysis found what this command runs (a wrapper's command, a shell's `-c`
   * string, `find -exec`): those are listed as commands of their own, `via` this one.
   */
  wraps?: true;
  /**
   * Indexes into `argv` of words whose first characters are only known at run time (`$x`,
   * `*.ts`, `$(…)`): each may turn into an option (a file named `-i`), so no option check on
   * this command can be sure of them.
   */
  openStart?: number[];
}

/**
 * Machine codes for what the analysis could not resolve. Open-ended: the union names the codes
 * the analyser emits today so callers can switch on them, and `string` keeps new codes additive.
 */
export type UncertaintyReason =
  | "parse_error"
  | "too_large"
  | "too_deep"
  | "eval"
  | "source"
  | "alias"
  | "dynamic_command"
  | "inline_code"
  | "stdin_to_interpreter"
  | "redirect_write"
  | "dangerous_assignment"
  | "deferred_code"
  | "expansion_code"
  | "arithmetic_value"
  | "re_evaluation"
  | "dangerous_flag"
  | "unknown_option"
  | "analysis_failed"
  | (string & {});

/** Something the script does that the analysis cannot vouch for; it keeps allow rules from allowing. */
export interface Uncertainty {
  /** Machine code, e.g. `eval`, `dynamic_command`, `parse_error`, `inline_code`. */
  reason: UncertaintyReason;
  /** The source slice that raised it. */
  text: string;
  /** Words for a human approver. */
  detail: string;
}

/** Everything the analyser found in one script. */
export interface ShellAnalysis {
  commands: SimpleCommand[];
  uncertainties: Uncertainty[];
}
