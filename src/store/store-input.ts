import { randomUUID } from "node:crypto";
import { DocketError, type DocketErrorCode } from "../errors/docket-error.js";
import { approvalQuerySql, type SearchEngine } from "./approval-query.js";
import type { Approval, ApprovalDecision, ApprovalFilter, NewApproval } from "./approval-record.js";
import type { EventFilter } from "./audit-record.js";
import type { CallFilter, CallState } from "./call-record.js";
import { LABELLED_RESULT_TEXTS } from "./labelled-result.js";
import type { MessageText } from "./pending-write.js";
import {
  type NewSession,
  SESSION_STATUSES,
  type Session,
  type SessionPatch,
} from "./session-record.js";
import { MESSAGE_ROLES, type NewMessage } from "./transcript-message.js";

/**
 * A new session record from `createSession`'s input, checked.
 *
 * @example
 * ```ts
 * const session = newSession({ principal: "agent", configHash: "ab12" }, Date.now());
 * ```
 */
export function newSession(input: NewSession, now: number): Session {
  if (typeof input?.principal !== "string" || input.principal === "") {
    throw new DocketError("invalid_session", "A session needs a principal.");
  }
  if (typeof input.configHash !== "string") {
    throw new DocketError(
      "invalid_session",
      "A session needs the hash of its config (configHash).",
    );
  }
  checkStatus(input.status);
  return {
    id: input.id ?? `ses_${randomUUID()}`,
    createdAt: now,
    updatedAt: now,
    principal: input.principal,
    status: input.status ?? "active",
    configHash: input.configHash,
    title: input.title,
    metadata: input.metadata,
  };
}

/**
 * Check a session patch's status.
 *
 * @example
 * ```ts
 * checkSessionPatch({ status: "completed" });
 * ```
 */
export function checkSessionPatch(patch: SessionPatch): void {
  checkStatus(patch?.status);
}

function checkStatus(status: unknown): void {
  if (status !== undefined && !SESSION_STATUSES.includes(status as never)) {
    throw new DocketError(
      "invalid_session",
      `Unknown session status ${JSON.stringify(status)}: use one of ${SESSION_STATUSES.join(", ")}.`,
    );
  }
}

/**
 * A message's content as JSON text, after checking its role.
 *
 * @example
 * ```ts
 * messageContent({ role: "user", content: "hi" }); // '"hi"'
 * ```
 */
export function messageContent(message: NewMessage): string {
  if (!MESSAGE_ROLES.includes(message?.role)) {
    throw new DocketError(
      "invalid_message",
      `Unknown message role ${JSON.stringify(message?.role)}: use one of ${MESSAGE_ROLES.join(", ")}.`,
    );
  }
  return jsonText(message.content, "invalid_message", "The message content");
}

/**
 * Messages as the engines store them: role and content text, each checked by `messageContent`.
 *
 * @example
 * ```ts
 * messageTexts([{ role: "user", content: { text: "hi" } }]); // [{ role: "user", content: '{"text":"hi"}' }]
 * ```
 */
export function messageTexts(messages: readonly NewMessage[]): MessageText[] {
  return messages.map((message) => ({ role: message?.role, content: messageContent(message) }));
}

/**
 * JSON text of a value that must be storable: undefined, a BigInt or a cycle is a developer's
 * mistake, reported as a DocketError with `code`.
 *
 * @example
 * ```ts
 * jsonText({ a: 1 }, "invalid_session", "The metadata"); // '{"a":1}'
 * ```
 */
export function jsonText(value: unknown, code: DocketErrorCode, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new DocketError(code, `${what} cannot be stored as JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (text === undefined) throw new DocketError(code, `${what} cannot be stored as JSON.`);
  return text;
}

/**
 * A new pending approval from `createApproval`'s input, checked.
 *
 * @example
 * ```ts
 * newApproval({ callId: "c1", tool: "refund", canonicalArgs: "{}", argsHash: "…", requestedBy: "agent" }, Date.now());
 * ```
 */
export function newApproval(input: NewApproval, now: number): Approval {
  for (const key of ["callId", "tool", "canonicalArgs", "argsHash", "requestedBy"] as const) {
    if (typeof input?.[key] !== "string") {
      throw new DocketError("invalid_approval", `An approval needs ${key} (a string).`);
    }
  }
  if (input.scope !== undefined && input.scope !== "once" && input.scope !== "session") {
    throw new DocketError("invalid_approval", "An approval's scope is once or session.");
  }
  for (const key of ["grantKey", "grantText"] as const) {
    if (input[key] !== undefined && typeof input[key] !== "string") {
      throw new DocketError("invalid_approval", `An approval's ${key} is a string.`);
    }
  }
  return {
    id: input.id ?? `apr_${randomUUID()}`,
    sessionId: input.sessionId,
    callId: input.callId,
    tool: input.tool,
    canonicalArgs: input.canonicalArgs,
    argsHash: input.argsHash,
    rule: input.rule,
    reason: input.reason,
    requestedBy: input.requestedBy,
    approvers: input.approvers ? [...input.approvers] : undefined,
    createdAt: input.createdAt ?? now,
    expiresAt: input.expiresAt,
    status: "pending",
    decidedBy: undefined,
    decidedAt: undefined,
    decisionReason: undefined,
    locallyAsserted: false,
    scope: input.scope ?? "once",
    grantKey: input.grantKey,
    grantText: input.grantText,
  };
}

const CALL_STATES: ReadonlySet<string> = new Set<CallState>([
  "requested",
  "claimed",
  "started",
  "finished",
  "interrupted",
]);

/**
 * Build the WHERE clause of `listCalls` with `?` placeholders (PostgreSQL renumbers them).
 *
 * @example
 * ```ts
 * callFilterSql({ tool: "refund", status: "ok" }); // { where: "WHERE tool = ? AND status = ?", params: ["refund", "ok"] }
 * ```
 */
export function callFilterSql(
  filter: CallFilter,
  {
    session = "session_id = ?",
    anySession,
  }: {
    /** Matches one session's calls; its one parameter is the session id (SQLite keys by number). */
    session?: string;
    /** Matches the calls of every session, one key probe each, to look a call id up in. */
    anySession?: string;
  } = {},
): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    params.push(value);
  };
  if (filter.sessionId !== undefined) add(session, filter.sessionId);
  if (filter.callId !== undefined) {
    // Without an index on call_id (SQLite), the primary key is probed once per session.
    if (filter.sessionId === undefined && anySession !== undefined) clauses.push(anySession);
    add("call_id = ?", filter.callId);
  }
  if (filter.tool !== undefined) add("tool = ?", filter.tool);
  if (filter.status !== undefined) {
    add(CALL_STATES.has(filter.status) ? "state = ?" : "status = ?", filter.status);
  }
  if (filter.since !== undefined) add("seen_at >= ?", filter.since);
  if (filter.fromCallId !== undefined) add("call_id >= ?", filter.fromCallId);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

/**
 * Build the WHERE clause of `listApprovals` with `?` placeholders.
 *
 * @example
 * ```ts
 * approvalFilterSql({ status: "pending" }); // { where: "WHERE status = ?", params: ["pending"] }
 * ```
 */
export function approvalFilterSql(
  filter: ApprovalFilter,
  engine: SearchEngine = "sqlite",
): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (filter.status !== undefined) {
    clauses.push("status = ?");
    params.push(filter.status);
  }
  if (filter.sessionId !== undefined) {
    clauses.push("session_id = ?");
    params.push(filter.sessionId);
  }
  const narrower = approvalQuerySql(filter, engine);
  clauses.push(...narrower.clauses);
  params.push(...narrower.params);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

/**
 * A listing limit: a positive integer, default 1000.
 *
 * @example
 * ```ts
 * listLimit(undefined); // 1000
 * ```
 */
export function listLimit(limit: number | undefined, fallback = 1000): number {
  if (limit === undefined) return fallback;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new DocketError("invalid_filter", "A limit must be a positive integer.");
  }
  return limit;
}

/**
 * Build the WHERE clause of `listEvents` with `?` placeholders.
 *
 * @example
 * ```ts
 * eventFilterSql({ sessionId: "ses_1" }); // { where: "WHERE session_id = ?", params: ["ses_1"] }
 * ```
 */
export function eventFilterSql(
  filter: EventFilter,
  {
    packedRows = false,
    sessionsOfCall = "SELECT session_id FROM calls WHERE call_id = ?",
    textPosition = "instr",
  }: {
    /**
     * Rows may hold several events, of several calls (SQLite, `TrailRows`): their columns are
     * their last event's, so the clauses on them let every such row through and the caller
     * filters its events.
     */
    packedRows?: boolean;
    /** A query of the sessions that have a call with the id given as its one parameter. */
    sessionsOfCall?: string;
    /** The engine's function for where a text holds another: `instr` (SQLite), `strpos`. */
    textPosition?: "instr" | "strpos";
  } = {},
): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    clauses.push(clause);
    params.push(value);
  };
  // A packed row's text has a newline between its events (canonical JSON has no raw newline).
  const packed = packedRows ? " OR instr(event, char(10)) > 0" : "";
  if (filter.sessionId !== undefined) add("session_id = ?", filter.sessionId);
  if (filter.callId !== undefined) {
    // Events are indexed by session only (every index slows appends): the calls table says
    // which sessions to look in.
    if (filter.sessionId === undefined) add(`session_id IN (${sessionsOfCall})`, filter.callId);
    add(`(call_id = ?${packed})`, filter.callId);
  }
  if (filter.tool !== undefined) add(`(tool = ?${packed})`, filter.tool);
  if (filter.type !== undefined) add(`(type = ?${packed})`, filter.type);
  if (filter.labelled === true) {
    // Rows that hold none of the texts every labelled result holds are never read; the caller
    // checks each event of the rest (isLabelledResult).
    add(`(type = ?${packed})`, "finished");
    const holds = LABELLED_RESULT_TEXTS.map(() => `${textPosition}(event, ?) > 0`);
    clauses.push(`(${holds.join(" OR ")})`);
    params.push(...LABELLED_RESULT_TEXTS);
  }
  if (filter.since !== undefined) add(`(at >= ?${packed})`, filter.since);
  if (filter.afterSeq !== undefined) add("seq > ?", filter.afterSeq);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(" AND ")}` : "", params };
}

/**
 * Check a decision given to `decideApproval`.
 *
 * @example
 * ```ts
 * checkDecision({ decision: "approved", by: "alice" });
 * ```
 */
export function checkDecision(decision: ApprovalDecision): void {
  if (decision?.decision !== "approved" && decision?.decision !== "denied") {
    throw new DocketError("invalid_decision", "A decision is approved or denied.");
  }
  if (typeof decision.by !== "string" || decision.by === "") {
    throw new DocketError("invalid_decision", "A decision needs the principal who made it (by).");
  }
  if (decision.scope !== undefined && decision.scope !== "once" && decision.scope !== "session") {
    throw new DocketError("invalid_decision", "A decision's scope is once or session.");
  }
}
