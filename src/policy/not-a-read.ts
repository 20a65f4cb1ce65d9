import type { Tool } from "../tool/tool.js";
import { readOnlyVerdict } from "./shell/read-only-script.js";
import type { ShellAnalysis } from "./shell/shell-analysis.js";

/**
 * For an ask on a tool that decides per call whether it writes (`run_command`), the reason with
 * why this call is not a read: the command and the option or construct that made it a write, so
 * the approver knows what a narrow allow rule would have to cover. Empty for other tools, for a
 * call that is a read (its ask came from a rule) and for a verdict without a reason.
 *
 * @example
 * ```ts
 * import { loadShellParser } from "./shell/shell-parser.js";
 * declare const runCommand: import("../tool/tool.js").Tool;
 * const parser = await loadShellParser();
 * notARead(runCommand, parser.analyse("sed -i s/a/b/ x"), "run_command can change things…").reason;
 * // 'run_command can change things… Not a read: "sed -i s/a/b/ x": sed -i edits files in place.'
 * ```
 */
export function notARead(
  tool: Pick<Tool, "writes" | "writesPerCall">,
  analysis: ShellAnalysis,
  reason: string | undefined,
): { reason?: string } {
  if (tool.writesPerCall !== true || !tool.writes || reason === undefined) return {};
  const proof = readOnlyVerdict(analysis);
  if (proof.status === "read") return {};
  const command = proof.command.length > 120 ? `${proof.command.slice(0, 120)}…` : proof.command;
  const said = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  return { reason: `${said} Not a read: ${JSON.stringify(command)}: ${proof.because}.` };
}
