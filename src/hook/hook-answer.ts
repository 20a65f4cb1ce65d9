/** What the hook process prints and how it exits. */
export interface HookReply {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

/** docket's answer to a host's question, before it is put in the host's words. */
export type HookVerdict =
  | {
      readonly type: "allow";
      readonly reason: string;
      /** The input the host runs instead: its command contained (`HostContainment`). */
      readonly updatedInput?: Readonly<Record<string, unknown>>;
    }
  | { readonly type: "deny"; readonly reason: string }
  /** Hand the call to the host's own permission prompt (only where the host honours ask). */
  | {
      readonly type: "ask";
      readonly reason: string;
      readonly updatedInput?: Readonly<Record<string, unknown>>;
    }
  /** Say nothing: an after event recorded, or a permission request docket has no answer for. */
  | { readonly type: "none" };

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
