import type { GlobTest } from "./compile-glob.js";
import type { HostPattern } from "./host-pattern.js";
import type { PathPattern } from "./path-pattern.js";
import type { Decision } from "./policy.js";
import type { CommandPattern } from "./shell/command-pattern.js";
import type { ShellRule } from "./shell/judge-shell.js";
import type { WhenCondition } from "./when-condition.js";

/** A tool-name glob, compiled. */
export interface ToolGlob {
  readonly text: string;
  /** True when the glob has no wildcards: the rule can be indexed by this exact name. */
  readonly literal: boolean;
  readonly test: GlobTest;
  /** `tool "NAME"` for a literal glob, precomputed for explanations. */
  readonly label: string | undefined;
}

/** A rule ready to judge calls: every matcher compiled once, at load. */
export interface CompiledRule {
  readonly id: string;
  readonly layer: string;
  /** Sort key: layer strength first (managed first), then position in the layer. */
  readonly order: number;
  readonly decision: Decision;
  readonly reason: string | undefined;
  readonly approvers: readonly string[] | undefined;
  readonly tools: readonly ToolGlob[];
  /** Present when the rule has `command`: the shell patterns and the rule as judgeShell takes it. */
  readonly shell: { readonly texts: readonly string[]; readonly rule: ShellRule } | undefined;
  readonly paths: readonly PathPattern[] | undefined;
  readonly hosts: readonly HostPattern[] | undefined;
  readonly when: WhenCondition | undefined;
  /** `when "EXPR"`, precomputed for explanations. */
  readonly whenLabel: string;
  /** A session grant made for one session only applies to calls of that session. */
  readonly sessionId: string | undefined;
}

/** Re-exported so callers need not know where shell patterns live. */
export type { CommandPattern };
