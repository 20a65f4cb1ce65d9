import type { HookReply, HookVerdict } from "../hook-answer.js";

const json = (value: unknown) => `${JSON.stringify(value)}\n`;

/**
 * A reply that exits 0 with `stdout`.
 *
 * @example
 * ```ts
 * quietReply(""); // { stdout: "", stderr: "", exitCode: 0 }
 * ```
 */
export const quietReply = (stdout: string): HookReply => ({ stdout, stderr: "", exitCode: 0 });

/**
 * The answer to a `PermissionRequest` (Claude Code, Codex CLI): a docket decision as the host's
 * `decision.behavior`, or silence so that the host prompts its user.
 *
 * @example
 * ```ts
 * permissionRequestReply("PermissionRequest", { type: "allow", reason: "approved" }).stdout;
 * // '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}\n'
 * ```
 */
export function permissionRequestReply(
  eventName: string,
  verdict: Exclude<HookVerdict, { type: "none" }>,
): HookReply {
  if (verdict.type === "ask") return quietReply("");
  const decision =
    verdict.type === "allow"
      ? { behavior: "allow" }
      : { behavior: "deny", message: verdict.reason };
  return quietReply(json({ hookSpecificOutput: { hookEventName: eventName, decision } }));
}

/**
 * The answer to a `PreToolUse` in `hookSpecificOutput.permissionDecision` form.
 *
 * @example
 * ```ts
 * preToolUseReply({ type: "deny", reason: "rule no-rm" }).stdout;
 * // '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rule no-rm"}}\n'
 * ```
 */
export function preToolUseReply(verdict: Exclude<HookVerdict, { type: "none" }>): HookReply {
  return quietReply(
    json({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: verdict.type,
        permissionDecisionReason: verdict.reason,
        ...(verdict.type !== "deny" && verdict.updatedInput
          ? { updatedInput: verdict.updatedInput }
          : {}),
      },
    }),
  );
}
