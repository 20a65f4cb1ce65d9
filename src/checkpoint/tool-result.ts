/** Why a call was refused before its handler ran. */
export type RefusalReason =
  | "cancelled"
  | "malformed_call"
  | "unreadable_arguments"
  | "unknown_tool"
  | "invalid_arguments"
  | "denied"
  | "policy_error"
  | "approval_required"
  | "approval_denied"
  | "approval_error"
  | "limit_exceeded"
  | "duplicate_call_id"
  | "audit_failed"
  | "unaudited_write"
  | "dedupe_error";

/** Why a call whose handler was started did not succeed. */
export type FailureReason =
  | "timeout"
  | "command_failed"
  | "error"
  | "cancelled"
  | "unserialisable_output"
  | "interrupted";

/** What every tool result carries. */
export interface ResultBase {
  /** The id of the call this answers, exactly as the model sent it. */
  readonly callId: string;
  /** The tool name, exactly as the model sent it. */
  readonly name: string;
  /** Words the model can act on. */
  readonly message: string;
  readonly durationMs: number;
  /** The policy rule that decided, when one did. */
  readonly rule?: string | undefined;
}

/** The handler ran and returned. `output` is the shaped output. */
export interface OkResult extends ResultBase {
  readonly status: "ok";
  readonly output: unknown;
  readonly reason?: undefined;
  /** Shown to the model before the output: set when the output is a recorded one, not a new run. */
  readonly note?: string;
  /**
   * Set for an open-world tool's result (text from outside): where it came from. The model
   * reads such output inside the data envelope (see `wrapUntrusted`).
   */
  readonly source?: string;
}

/** Nothing ran. */
export interface RefusedResult extends ResultBase {
  readonly status: "refused";
  readonly reason: RefusalReason;
  readonly output?: undefined;
}

/** A human must decide first; the call resumes when they have. */
export interface AwaitingApprovalResult extends ResultBase {
  readonly status: "awaiting_approval";
  readonly reason: "approval_pending";
  readonly approvalId: string;
  readonly output?: undefined;
}

/**
 * The handler started and did not succeed. `output` is kept when the handler returned and the
 * tool itself reported the failure (a command's exit code and output, see `ToolFailureReport`).
 */
export interface FailedResult extends ResultBase {
  readonly status: "failed";
  readonly reason: FailureReason;
  readonly output?: unknown;
}

/**
 * The one answer every call gets: built from the original call's id and name.
 *
 * @example
 * ```ts
 * declare const result: ToolResult;
 * declare const use: (output: unknown) => void;
 * switch (result.status) {
 *   case "ok": use(result.output); break;
 *   case "refused": case "failed": console.log(result.reason, result.message); break;
 *   case "awaiting_approval": console.log("waiting for", result.approvalId); break;
 * }
 * ```
 */
export type ToolResult = OkResult | RefusedResult | AwaitingApprovalResult | FailedResult;

/** The four statuses a result can have. */
export type ToolResultStatus = ToolResult["status"];

/** A tool call as a model sends it: the arguments are raw text. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** The argument text exactly as the model produced it. */
  readonly arguments: string;
}
