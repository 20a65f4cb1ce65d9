import type { PolicyRuleSpec } from "./policy-rule.js";
import { isInterpreter } from "./shell/interpreters.js";
import type { ShellCoverage } from "./shell/judge-shell.js";
import type { SimpleCommand } from "./shell/shell-analysis.js";
import { WRAPPERS } from "./shell/wrappers.js";

/** A rule "always allow" would add, or why it is not offered. */
export type AllowRuleProposal =
  | {
      readonly status: "offered";
      /** Without `id` and `reason`: the caller names and explains it. */
      readonly rule: PolicyRuleSpec & { readonly decision: "allow" };
      /** What the rule allows, in words for the prompt. */
      readonly covers: string;
    }
  | { readonly status: "not_offered"; readonly reason: string };

/**
 * Programs that are never a prefix: they run whatever their arguments say (shells and other
 * interpreters, wrappers such as `env`, `sudo`, `xargs`, `timeout`), so allowing "`sudo *`"
 * would allow everything. The wrapper table and the interpreter list of the shell analysis,
 * plus the shell's own ways of running text.
 */
const NEVER_PREFIX = new Set([
  ...Object.keys(WRAPPERS),
  ...["eval", "exec", "source", ".", "command", "builtin", "trap", "alias", "let"],
  ...["awk", "gawk", "mawk", "nawk", "busybox", "toybox", "su", "doas", "sudo", "env"],
  ...["xargs", "nice", "timeout", "nohup", "find", "parallel", "watch", "ssh", "script"],
  ...["npx", "bunx", "pnpx", "uvx", "pipx", "nix-shell", "nix", "docker", "podman", "kubectl"],
]);

/** One literal word a pattern can hold as it is: no glob, expansion, blank or quote. */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * Whether `program` (as the command names it, a path or a name) may start an allow prefix.
 *
 * @example
 * ```ts
 * mayBePrefix("git"); // true
 * mayBePrefix("/usr/bin/sudo"); // false
 * ```
 */
export function mayBePrefix(program: string): boolean {
  const base = (program.split("/").pop() ?? "").toLowerCase();
  if (base === "" || !PLAIN_WORD.test(program)) return false;
  return !NEVER_PREFIX.has(base) && !isInterpreter(base) && !base.includes("=");
}

/**
 * The narrowest useful rule that would allow a call the approver is looking at: for a shell
 * command, one `command` prefix per sub-command no rule covered, the program and its first
 * argument (`git status *`, `npm test *`; a program alone exactly), as Codex's prefix rules are;
 * for a path tool, the tool and that exact path; for a URL tool, the tool and that host; else
 * the tool. Not offered when a sub-command is a shell, an interpreter or a wrapper, runs inside
 * one, is not plain literal text, is matched by an ask or deny rule, or when the analysis was
 * uncertain (no allow rule could allow it then).
 *
 * @example
 * ```ts
 * declare const shell: import("./shell/judge-shell.js").ShellCoverage; // what no rule covered
 * const args = { command: "git status" };
 * proposeAllowRule({ tool: "run_command", policyArgs: { command: "command" }, args, shell });
 * // { status: "offered", rule: { decision: "allow", tool: "run_command", command: ["git status *"] }, covers: "…" }
 * ```
 */
export function proposeAllowRule({
  tool,
  policyArgs,
  args,
  shell,
}: {
  readonly tool: string;
  readonly policyArgs: {
    readonly command?: string;
    readonly path?: unknown;
    readonly url?: string;
  };
  readonly args: Readonly<Record<string, unknown>>;
  readonly shell: ShellCoverage | undefined;
}): AllowRuleProposal {
  if (policyArgs.command !== undefined) return proposeForShell(tool, shell);
  if (typeof policyArgs.path === "string") {
    const value = args[policyArgs.path];
    if (typeof value !== "string" || !/^[^*?[\]{}!\\]+$/.test(value) || value.startsWith("~")) {
      return {
        status: "not_offered",
        reason: "the path is not plain text a rule can name exactly",
      };
    }
    return {
      status: "offered",
      rule: { decision: "allow", tool, path: value },
      covers: `${tool} on exactly ${value}`,
    };
  }
  if (policyArgs.path !== undefined) {
    return { status: "not_offered", reason: `${tool} takes several paths` };
  }
  if (policyArgs.url !== undefined) {
    const host = hostOf(args[policyArgs.url]);
    if (host === undefined) return { status: "not_offered", reason: "the URL has no plain host" };
    return {
      status: "offered",
      rule: { decision: "allow", tool, host },
      covers: `${tool} for the host ${host}`,
    };
  }
  return { status: "offered", rule: { decision: "allow", tool }, covers: `every ${tool} call` };
}

function proposeForShell(tool: string, shell: ShellCoverage | undefined): AllowRuleProposal {
  const no = (reason: string): AllowRuleProposal => ({ status: "not_offered", reason });
  if (shell === undefined) return no("the command was not analysed");
  const [uncertain] = shell.uncertainties;
  if (uncertain !== undefined) {
    return no(
      `the command cannot be analysed with confidence (${uncertain.reason}), so no rule could allow it`,
    );
  }
  const [asked] = shell.asked;
  if (asked !== undefined)
    return no(`a rule that asks or denies matches ${JSON.stringify(asked.text)}`);
  if (shell.uncovered.length === 0) return no("every sub-command is already covered");
  const patterns: string[] = [];
  for (const command of shell.uncovered) {
    const pattern = prefixOf(command);
    if (pattern.status === "refused") return no(pattern.reason);
    if (!patterns.includes(pattern.text)) patterns.push(pattern.text);
  }
  return {
    status: "offered",
    rule: { decision: "allow", tool, command: patterns },
    covers: `${tool} commands matching ${patterns.map((p) => JSON.stringify(p)).join(", ")}`,
  };
}

function prefixOf(
  command: SimpleCommand,
): { status: "ok"; text: string } | { status: "refused"; reason: string } {
  const shown = JSON.stringify(command.text);
  if (command.depth > 0 || command.via.length > 0) {
    return {
      status: "refused",
      reason: `${shown} runs inside ${command.via.join(", ") || "another command"}`,
    };
  }
  if (!mayBePrefix(command.program)) {
    return {
      status: "refused",
      reason: `${JSON.stringify(command.program)} runs whatever its arguments say (a shell, interpreter or wrapper), or is not plain text`,
    };
  }
  const [program, first] = command.argv;
  if (program !== command.program)
    return { status: "refused", reason: `${shown} is not plain text` };
  if (first === undefined) return { status: "ok", text: program };
  if (!PLAIN_WORD.test(first)) {
    return { status: "refused", reason: `the first argument of ${shown} is not plain text` };
  }
  return { status: "ok", text: `${program} ${first} *` };
}

function hostOf(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const host = new URL(value).hostname;
    return /^[a-z0-9.-]+$/i.test(host) ? host.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}
