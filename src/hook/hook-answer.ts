import type { HostName } from "./host-name.js";

/** What the hook process prints and how it exits. */
export interface HookReply {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** docket's answer to a host's question, before it is put in the host's words. */
export type HookVerdict =
  | { readonly type: "allow"; readonly reason: string }
  | { readonly type: "deny"; readonly reason: string }
  /** Hand the call to the host's own permission prompt (only where the host honours ask). */
  | { readonly type: "ask"; readonly reason: string }
  /** Say nothing: an after event recorded, or a permission request docket has no answer for. */
  | { readonly type: "none" };

const json = (value: unknown) => `${JSON.stringify(value)}\n`;

/**
 * Deny in every host's words at once: exit code 2 with the reason on standard error is the block
 * that Claude Code, gemini-cli and Codex CLI all honour whatever their JSON parsing does, and
 * what the opencode plugin reads as a refusal. Every failure inside docket answers this.
 *
 * @example
 * ```ts
 * failClosed("docket could not read the payload"); // { stdout: "", stderr: "docket: … denied\n", exitCode: 2 }
 * ```
 */
export function failClosed(reason: string): HookReply {
  const line = reason.replace(/\s+/g, " ").trim().slice(0, 2000);
  return { stdout: "", stderr: `docket: ${line}; the call is denied.\n`, exitCode: 2 };
}

/**
 * Put a verdict in the host's words: Claude Code's `hookSpecificOutput.permissionDecision`,
 * gemini-cli's `decision`, Codex CLI's deny (it rejects `allow` without `updatedInput` and
 * `ask`, so allow is silence and an ask never reaches it), opencode's plugin's `{ decision }`.
 *
 * @example
 * ```ts
 * hookReply("claude-code", "PreToolUse", { type: "deny", reason: "rule no-rm" }).stdout;
 * // '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"rule no-rm"}}\n'
 * ```
 */
export function hookReply(host: HostName, eventName: string, verdict: HookVerdict): HookReply {
  const ok = (stdout: string): HookReply => ({ stdout, stderr: "", exitCode: 0 });
  if (verdict.type === "none") return ok(host === "gemini-cli" ? json({}) : "");
  switch (host) {
    case "claude-code":
    case "codex": {
      if (eventName === "PermissionRequest") {
        if (verdict.type === "ask") return ok("");
        const decision =
          verdict.type === "allow"
            ? { behavior: "allow" }
            : { behavior: "deny", message: verdict.reason };
        return ok(json({ hookSpecificOutput: { hookEventName: eventName, decision } }));
      }
      if (host === "codex" && verdict.type !== "deny") {
        // Never an ask to Codex: it would run the call. The caller turns asks into wait or deny.
        return verdict.type === "allow" ? ok("") : failClosed(verdict.reason);
      }
      return ok(
        json({
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: verdict.type,
            permissionDecisionReason: verdict.reason,
          },
        }),
      );
    }
    case "gemini-cli":
      return ok(json({ decision: verdict.type, reason: verdict.reason }));
    case "opencode":
      // The plugin has no prompt: anything but allow is a refusal there.
      return verdict.type === "allow"
        ? ok(json({ decision: "allow", reason: verdict.reason }))
        : ok(json({ decision: "deny", reason: verdict.reason }));
  }
}
