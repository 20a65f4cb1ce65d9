import type { JsonSchema } from "./input-schema.js";

/**
 * Which argument of a tool holds something policy matchers understand: a shell command, a path,
 * a URL. Names are top-level argument keys.
 */
export interface PolicyArgs {
  readonly command?: string;
  readonly path?: string | readonly string[];
  readonly url?: string;
}

/** What a handler receives beside its arguments. */
export interface ToolContext {
  /** The id the model gave this call. */
  readonly callId: string;
  /** Aborted when the caller cancels or the deadline passes: stop work when it fires. */
  readonly signal: AbortSignal;
  /** Who asked for the call (the agent's principal). */
  readonly principal: string;
  readonly sessionId: string | undefined;
  /** Stable across retries of the same call: pass it to upstream APIs that accept one. */
  readonly idempotencyKey: string;
  /** Record a line in the call's event stream (and so the audit trail). */
  log(message: string, data?: unknown): void;
  /**
   * Report output as it is produced (a running command's stdout and stderr), for the operator
   * watching the run; not recorded, not sent to the model (the handler's result is). Cheap to
   * call, never throws. Call it on the context (`ctx.output(…)`); it may be absent. Bytes are
   * copied for the watcher, so a tool may pass a view of a buffer it reuses.
   */
  output?(chunk: Uint8Array | string, stream: "stdout" | "stderr"): void;
}

/**
 * Whether a tool's process runs confined by an OS sandbox. The checkpoint's decide step reads it:
 * an `unconfined` tool is never allowed by a rule alone (allow becomes ask, and the prompt says
 * not sandboxed); a `refused` one is denied with its reason. `off` and `sandboxed` change nothing.
 */
export type ToolConfinement =
  | { readonly status: "sandboxed" }
  | { readonly status: "unconfined"; readonly reason: string }
  | { readonly status: "refused"; readonly reason: string }
  | { readonly status: "off" };

/**
 * A tool as everything outside the checkpoint sees it: the menu entry. It carries no handler;
 * `defineTool` seals that away.
 */
/**
 * A tool's own verdict that the action it ran did not succeed, though the handler returned: a
 * command that exited non-zero, was ended by a signal, or ran out of time. The checkpoint then
 * records the call as `failed` with this reason and keeps the output, so the model sees both.
 *
 * @example
 * ```ts
 * const report: ToolFailureReport = { reason: "command_failed", message: "the command exited with code 3" };
 * ```
 */
export interface ToolFailureReport {
  /** `command_failed`: it ran and reported failure; `timeout`: it was stopped at its deadline. */
  readonly reason: "command_failed" | "timeout";
  /** Words for the model, after "TOOL failed: ". */
  readonly message: string;
}

export interface Tool {
  readonly name: string;
  readonly description: string;
  /** The JSON Schema published to model providers. */
  readonly inputSchema: JsonSchema;
  /**
   * Whether running it may change the world. Policy defaults and intents depend on it. For a
   * tool that decides per call (`writesPerCall`), this is the worst case (`true`): what the menu,
   * `docket policy check` without arguments and the gateway's annotations show. The checkpoint
   * resolves the call's own answer once, after validation, and every later step reads that.
   */
  readonly writes: boolean;
  /** Set when `writes` is decided per call from the validated arguments (see `defineTool`). */
  readonly writesPerCall?: true;
  /** The handler's deadline in milliseconds; `undefined` means the checkpoint's default. */
  readonly timeoutMs: number | undefined;
  readonly policyArgs: PolicyArgs;
  /** Whether the tool declared how to recognise a repeat of the same action. */
  readonly dedupes: boolean;
  /** For tools that start processes: whether those run in a sandbox. Absent: not declared. */
  readonly confinement?: ToolConfinement;
  /**
   * Whether its results carry text from outside (a web page, an outside server): such a result
   * reaches the model labelled as data and taints the run (see docs/untrusted-content.md).
   */
  readonly openWorld: boolean;
  /**
   * Whether a call can carry data out of the session (an outward channel), as the tool declared
   * it; absent, the checkpoint classifies it (see `classifySends`).
   */
  readonly sends?: boolean;
}
