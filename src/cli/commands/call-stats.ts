import type { AuditRecord } from "../../store/audit-record.js";

/** How calls are grouped in time. */
export type StatsPeriod = "hour" | "day" | "all";

/** Figures for one tool in one period. */
export interface ToolStats {
  readonly tool: string;
  /** The period's start (ISO 8601), or `all`. */
  readonly period: string;
  readonly calls: number;
  readonly allowed: number;
  readonly asked: number;
  readonly denied: number;
  readonly ok: number;
  readonly refused: number;
  readonly failed: number;
  /** Waiting for a person, or interrupted: no outcome yet. */
  readonly pending: number;
  /** Handler time, ms: from the handler's start to its outcome. */
  readonly handlerMs: { readonly p50: number; readonly p95: number; readonly max: number };
  /** Time from the approval request to its answer, ms (calls that were asked and answered). */
  readonly approvalWaitMs: { readonly p50: number; readonly p95: number };
  /** Bytes of the results handlers returned, before capping. */
  readonly resultBytes: number;
  /** Estimated tokens of what the model read of them (capped text, one token per 4 bytes). */
  readonly resultTokens: number;
}

interface CallFacts {
  tool: string;
  requestedAt: number;
  /** The latest dispatch's request: a resumed call's durations count from there. */
  dispatchedAt: number;
  decision?: string;
  status?: string;
  approvalAskedAt?: number;
  approvalWaitMs?: number;
  startedAt?: number;
  handlerMs?: number;
  resultBytes: number;
  resultTokens: number;
}

/**
 * Nearest-rank percentile of sorted numbers; 0 for none.
 *
 * @example
 * ```ts
 * percentile([1, 2, 3, 4], 0.5); // 2
 * ```
 */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
}

/**
 * The period an instant falls in: its day (`2026-12-03`), hour (`2026-12-03T11:00Z`) or `all`.
 *
 * @example
 * ```ts
 * periodOf(Date.parse("2026-12-03T11:42:00Z"), "hour"); // "2026-12-03T11:00Z"
 * ```
 */
export function periodOf(at: number, period: StatsPeriod): string {
  if (period === "all") return "all";
  const iso = new Date(at).toISOString();
  return period === "day" ? iso.slice(0, 10) : `${iso.slice(0, 13)}:00Z`;
}

function note(facts: CallFacts, record: AuditRecord): void {
  const event = record.event;
  switch (event.type) {
    case "decided":
      facts.decision = event.decision;
      return;
    case "approval_requested":
      facts.approvalAskedAt = event.at;
      return;
    case "approved":
    case "approval_denied":
      if (facts.approvalAskedAt !== undefined)
        facts.approvalWaitMs = Math.max(0, event.at - facts.approvalAskedAt);
      return;
    case "started":
      facts.startedAt = event.at;
      return;
    case "refused":
      facts.status = "refused";
      return;
    case "finished":
      facts.status = event.status;
      facts.resultBytes += event.outputBytes;
      facts.resultTokens += Math.ceil(Buffer.byteLength(event.output) / 4);
      // durationMs counts from the request (approval wait included): take the time before the
      // handler started off it, at the events' millisecond resolution.
      if (facts.startedAt !== undefined)
        facts.handlerMs = Math.max(0, event.durationMs - (facts.startedAt - facts.dispatchedAt));
      return;
    default:
      return;
  }
}

/**
 * Aggregate audit events into per-tool, per-period figures. A call belongs to the period of its
 * `requested` event; events of calls requested before the records begin are left out.
 *
 * @example
 * ```ts
 * declare const store: import("../../store/store.js").Store;
 * const rows = callStats(await store.listEvents({ sessionId: "s-1" }), "day");
 * rows[0]?.handlerMs.p95;
 * ```
 */
export function callStats(
  records: Iterable<AuditRecord>,
  period: StatsPeriod = "day",
): ToolStats[] {
  const calls = new Map<string, CallFacts>();
  for (const record of records) {
    const key = `${record.sessionId}\0${record.callId}`;
    let facts = calls.get(key);
    if (record.type === "requested") {
      // A resumed call is requested again: its first request places it.
      if (facts === undefined) {
        facts = {
          tool: record.tool,
          requestedAt: record.at,
          dispatchedAt: record.at,
          resultBytes: 0,
          resultTokens: 0,
        };
        calls.set(key, facts);
      } else {
        facts.dispatchedAt = record.at;
      }
      continue;
    }
    if (facts) note(facts, record);
  }
  const groups = new Map<string, CallFacts[]>();
  for (const facts of calls.values()) {
    const key = `${facts.tool}\0${periodOf(facts.requestedAt, period)}`;
    const group = groups.get(key);
    if (group) group.push(facts);
    else groups.set(key, [facts]);
  }
  return [...groups.entries()]
    .map(([key, group]) => summarise(key, group))
    .sort((a, b) => a.period.localeCompare(b.period) || a.tool.localeCompare(b.tool));
}

function summarise(key: string, group: readonly CallFacts[]): ToolStats {
  const [tool = "", period = ""] = key.split("\0");
  const count = (test: (f: CallFacts) => boolean) => group.filter(test).length;
  const sorted = (values: (number | undefined)[]) =>
    values.filter((v): v is number => v !== undefined).sort((a, b) => a - b);
  const handler = sorted(group.map((f) => f.handlerMs));
  const waits = sorted(group.map((f) => f.approvalWaitMs));
  return {
    tool,
    period,
    calls: group.length,
    allowed: count((f) => f.decision === "allow"),
    asked: count((f) => f.decision === "ask"),
    denied: count((f) => f.decision === "deny"),
    ok: count((f) => f.status === "ok"),
    refused: count((f) => f.status === "refused"),
    failed: count((f) => f.status === "failed"),
    pending: count((f) => f.status === undefined),
    handlerMs: {
      p50: percentile(handler, 0.5),
      p95: percentile(handler, 0.95),
      max: handler.at(-1) ?? 0,
    },
    approvalWaitMs: { p50: percentile(waits, 0.5), p95: percentile(waits, 0.95) },
    resultBytes: group.reduce((n, f) => n + f.resultBytes, 0),
    resultTokens: group.reduce((n, f) => n + f.resultTokens, 0),
  };
}
