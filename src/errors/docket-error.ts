/**
 * Every code a `DocketError` is thrown with: switch on it exhaustively. A new code is added here
 * (test/docket-error-codes.test.ts checks that every code thrown in src/ is listed).
 */
export type DocketErrorCode =
  | "audit_attestation_failed"
  | "audit_export_invalid"
  | "audit_key_exposed"
  | "audit_key_invalid"
  | "audit_key_missing"
  | "call_taken"
  | "cases_invalid"
  | "config_invalid"
  | "digest_log_unreadable"
  | "duplicate_approval"
  | "duplicate_session"
  | "duplicate_tool"
  | "hook_settings_unreadable"
  | "invalid_approval"
  | "invalid_call_result"
  | "invalid_command_pattern"
  | "invalid_decision"
  | "invalid_event"
  | "invalid_filter"
  | "invalid_lease"
  | "invalid_limits"
  | "invalid_message"
  | "invalid_queue"
  | "invalid_session"
  | "invalid_store_url"
  | "invalid_tool"
  | "lease_lost"
  | "listen_failed"
  | "mcp_start_failed"
  | "model_error"
  | "model_invalid"
  | "model_key_missing"
  | "no_lock_file"
  | "package_missing"
  | "policy_invalid"
  | "script_exhausted"
  | "script_invalid"
  | "script_no_branch"
  | "session_busy"
  | "session_pending"
  | "store_closed"
  | "store_damaged"
  | "store_file_gone"
  | "store_not_found"
  | "store_open_failed"
  | "store_outdated"
  | "store_read_only"
  | "store_timeout"
  | "store_too_new"
  | "store_unwritable"
  | "token_file_invalid"
  | "unknown_server"
  | "unknown_session"
  | "workspace_missing";

/**
 * The one error class developers catch from docket. Errors a model sees are values
 * (tool results); errors a developer must fix (a bad tool definition, a policy file that does
 * not load, a store that cannot open) are thrown as a `DocketError` with a stable string code.
 *
 * @example
 * ```ts
 * import { defineTool } from "../tool/define-tool.js";
 * try {
 *   defineTool({ name: "bad name", description: "x", input: {}, writes: false, handler: () => 1 });
 * } catch (error) {
 *   if (error instanceof DocketError && error.code === "invalid_tool") console.error(error.message);
 * }
 * ```
 */
export class DocketError extends Error {
  /** A stable, machine-readable code such as `invalid_tool` or `policy_invalid`. */
  readonly code: DocketErrorCode;

  constructor(code: DocketErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DocketError";
    this.code = code;
  }
}

/**
 * Narrow an unknown value to a `DocketError`, optionally with a given code.
 *
 * @example
 * ```ts
 * declare const error: unknown; // what a catch caught
 * if (isDocketError(error, "duplicate_tool")) console.error(error.message);
 * ```
 */
export function isDocketError(value: unknown, code?: DocketErrorCode): value is DocketError {
  return value instanceof DocketError && (code === undefined || value.code === code);
}
