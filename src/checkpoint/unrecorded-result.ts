import type { ToolResult } from "./tool-result.js";

/**
 * The result of a call that ran but whose outcome the store could not keep: withheld, and
 * reported as the trail will show it (interrupted), never as if it were on record.
 *
 * @example
 * ```ts
 * declare const result: import("./tool-result.js").ToolResult; // a write's, its commit failed
 * const answer = ranButNotKept(result); // { status: "failed", reason: "interrupted", … }
 * ```
 */
export function ranButNotKept(result: ToolResult): ToolResult {
  return {
    callId: result.callId,
    name: result.name,
    status: "failed",
    reason: "interrupted",
    message: `${result.name} ran, but its outcome could not be recorded (the store failed): its result is withheld, and the call is not run again.`,
    durationMs: result.durationMs,
    ...(result.rule === undefined ? {} : { rule: result.rule }),
  };
}

/**
 * A result the store could not keep, of a call whose records were deferred (a read, a refusal):
 * never handed on as if it were on record.
 *
 * @example
 * ```ts
 * declare const result: import("./tool-result.js").ToolResult; // a read's, the flush failed
 * const answer = withheldResult(result); // { status: "refused", reason: "audit_failed", … }
 * ```
 */
export function withheldResult(result: ToolResult): ToolResult {
  return {
    callId: result.callId,
    name: result.name,
    status: "refused",
    reason: "audit_failed",
    message: `The result of ${result.name} could not be recorded (the store failed), so it is withheld.`,
    durationMs: result.durationMs,
  };
}
