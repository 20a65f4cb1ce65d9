import type { AuditRecord } from "../../store/audit-record.js";
import type { CallRecord } from "../../store/call-record.js";
import { formatTime } from "./text-table.js";

/** Who answered an ask, and how long the person took, for one call. */
export interface ApprovalTiming {
  readonly by: string;
  readonly waitMs: number | undefined;
}

/**
 * The key of a call in `approvalTimings`: call ids repeat across sessions.
 *
 * @example
 * ```ts
 * timingKey("ses_1", "call_7"); // "ses_1\u0000call_7"
 * ```
 */
export function timingKey(sessionId: string | undefined, callId: string): string {
  return `${sessionId ?? ""}\0${callId}`;
}

/**
 * Who approved or denied each call, and how long the human took (from the request to the
 * answer), from approval events, by `timingKey`. The first answer counts.
 *
 * @example
 * ```ts
 * declare const events: import("../../store/audit-record.js").AuditRecord[];
 * approvalTimings(events).get(timingKey("ses_1", "call_7")); // { by: "lead", waitMs: 5120 }
 * ```
 */
export function approvalTimings(events: readonly AuditRecord[]): Map<string, ApprovalTiming> {
  const asked = new Map<string, number>();
  const timings = new Map<string, ApprovalTiming>();
  for (const { event } of events) {
    const key = timingKey(event.sessionId, event.callId);
    if (event.type === "approval_requested" && !asked.has(key)) {
      asked.set(key, event.at);
    } else if (event.type === "approved" || event.type === "approval_denied") {
      if (timings.has(key)) continue;
      const since = asked.get(key);
      timings.set(key, {
        by: event.by,
        waitMs: since === undefined ? undefined : event.at - since,
      });
    }
  }
  return timings;
}

/**
 * Calls in story order: sessions by their latest call, newest first; within a session, oldest
 * first, as the calls happened. `reverse` gives the plain newest-first list instead.
 *
 * @example
 * ```ts
 * declare const newestFirst: import("../../store/call-record.js").CallRecord[]; // as listCalls gives them
 * storyOrder(newestFirst); // ses_2's calls c1, c2, then ses_1's c1, c2
 * ```
 */
export function storyOrder(newestFirst: readonly CallRecord[], reverse = false): CallRecord[] {
  if (reverse) return [...newestFirst];
  const bySession = new Map<string, CallRecord[]>();
  for (const call of newestFirst) {
    const list = bySession.get(call.sessionId) ?? [];
    list.push(call);
    bySession.set(call.sessionId, list);
  }
  return [...bySession.values()].flatMap((calls) => calls.reverse());
}

/**
 * A duration for a table cell: milliseconds under a second, else seconds.
 *
 * @example
 * ```ts
 * formatDuration(3.4); // "3 ms"
 * formatDuration(61_500); // "61.5 s"
 * ```
 */
export function formatDuration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms) || ms < 0) return "-";
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The columns of `docket audit list`; SESSION only when the list spans sessions. */
export function auditHeader(withSession: boolean): string[] {
  return [
    "TIME",
    ...(withSession ? ["SESSION"] : []),
    "CALL",
    "TOOL",
    "DECISION",
    "RULE",
    "BY",
    "STATUS",
    "REASON",
    "HANDLER",
    "WAIT",
  ];
}

/**
 * One row of `docket audit list`: who decided (the policy, or the person who answered an ask),
 * the handler's own run time (from its start to its end), and the human's wait apart from it.
 *
 * @example
 * ```ts
 * declare const call: import("../../store/call-record.js").CallRecord;
 * declare const events: import("../../store/audit-record.js").AuditRecord[];
 * const timings = approvalTimings(events);
 * auditRow(call, timings, false); // ["2026-…Z", "call_7", "issue_refund", "ask", "refund-ceiling", "lead", "ok", "", "3 ms", "5.1 s"]
 * ```
 */
export function auditRow(
  call: CallRecord,
  timings: ReadonlyMap<string, ApprovalTiming>,
  withSession: boolean,
): string[] {
  const timing = timings.get(timingKey(call.sessionId, call.callId));
  const by =
    timing?.by ??
    (call.decision === "allow" || call.decision === "deny"
      ? "policy"
      : call.decision === "ask"
        ? "(nobody)"
        : "-");
  const handler =
    call.startedAt !== undefined && call.finishedAt !== undefined
      ? call.finishedAt - call.startedAt
      : undefined;
  return [
    formatTime(call.seenAt),
    ...(withSession ? [call.sessionId || "(none)"] : []),
    call.callId,
    call.tool,
    call.decision ?? "-",
    call.rule ?? "-",
    by,
    call.status ?? call.state,
    call.reason ?? "",
    formatDuration(handler),
    timing ? formatDuration(timing.waitMs) : "-",
  ];
}
