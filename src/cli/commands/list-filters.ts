import { InvalidArgumentError } from "commander";
import type { ToolResultStatus } from "../../checkpoint/tool-result.js";
import type { ApprovalStatus } from "../../store/approval-record.js";
import type { CallState } from "../../store/call-record.js";
import { SESSION_STATUSES, type SessionStatus } from "../../store/session-record.js";
import type { Store } from "../../store/store.js";

// Every value a read-only command's filter can match: a filter nothing could match is a typo,
// and a typo must not read as "nothing happened" (an empty list, exit 0).
const RESULT_STATUSES: readonly ToolResultStatus[] = [
  "ok",
  "failed",
  "refused",
  "awaiting_approval",
];
const CALL_STATES: readonly CallState[] = [
  "requested",
  "claimed",
  "started",
  "finished",
  "interrupted",
];
const APPROVAL_STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "denied", "expired"];

function oneOf<T extends string>(allowed: readonly T[], value: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new InvalidArgumentError(`"${value}" is not one of ${allowed.join(", ")}.`);
}

/**
 * `audit list --status`: a call's result status or its state, else a clear error.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * program.option("--status <status>", "…", parseCallStatus);
 * ```
 */
export function parseCallStatus(value: string): ToolResultStatus | CallState {
  return oneOf<ToolResultStatus | CallState>([...RESULT_STATUSES, ...CALL_STATES], value);
}

/**
 * `approvals list --status`: an approval's status, else a clear error.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * program.option("--status <status>", "…", parseApprovalStatus, "pending");
 * ```
 */
export function parseApprovalStatus(value: string): ApprovalStatus {
  return oneOf(APPROVAL_STATUSES, value);
}

/**
 * `sessions list --status`: a session's status, else a clear error.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * program.option("--status <status>", "…", parseSessionStatus);
 * ```
 */
export function parseSessionStatus(value: string): SessionStatus {
  return oneOf(SESSION_STATUSES, value);
}

/**
 * A `--session ID` that names no session of the store is a mistake, not an empty list: throw,
 * naming the store, unless the session exists or the list found something under that id.
 *
 * @example
 * ```ts
 * declare const store: import("../../store/store.js").Store;
 * declare const options: { session?: string }; // the command's flags
 * const calls = await store.listCalls({ sessionId: options.session });
 * await checkSessionFilter(store, options.session, calls.length);
 * ```
 */
export async function checkSessionFilter(
  store: Store,
  sessionId: string | undefined,
  found: number,
): Promise<void> {
  if (sessionId === undefined || found > 0 || (await store.getSession(sessionId))) return;
  throw new Error(`There is no session ${sessionId} in ${store.location}.`);
}
