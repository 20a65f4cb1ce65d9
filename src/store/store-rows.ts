import type { ToolResult, ToolResultStatus } from "../checkpoint/tool-result.js";
import { parseJson } from "../shared/parse-json.js";
import type { Approval, ApprovalStatus } from "./approval-record.js";
import type { ChainRow } from "./audit-chain.js";
import type { AuditRecord } from "./audit-record.js";
import type { CallOutcome, CallRecord, CallState, ClaimResult } from "./call-record.js";
import { type CallRow, rowArgsHash } from "./call-state.js";
import { storedText } from "./pending-event.js";
import type { Session, SessionStatus } from "./session-record.js";
import type { StoreEvent, StoreEventType } from "./store-event.js";
import { readOutcome, storedOutcome } from "./stored-outcome.js";
import type { MessageRole, TranscriptMessage } from "./transcript-message.js";

/** A row as a driver returns it: SQLite gives numbers, PostgreSQL gives bigint as text. */
export type Row = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return value === null || value === undefined ? undefined : String(value);
}

function num(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

function json(value: unknown): unknown {
  return value === null || value === undefined ? undefined : parseJson(String(value));
}

/**
 * A `sessions` row as a Session.
 *
 * @example
 * ```ts
 * declare const db: import("./sqlite/sqlite-driver.js").Database;
 * const id = "ses_1";
 * const session = toSession(db.prepare("SELECT * FROM sessions WHERE id = ?").get(id) as Row);
 * ```
 */
export function toSession(row: Row): Session {
  return {
    id: String(row.id),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    principal: String(row.principal),
    status: String(row.status) as SessionStatus,
    configHash: String(row.config_hash),
    title: text(row.title),
    metadata: json(row.metadata),
  };
}

/**
 * A `messages` row as a TranscriptMessage.
 *
 * @example
 * ```ts
 * declare const rows: Row[]; // SELECT * FROM messages
 * rows.map(toMessage);
 * ```
 */
export function toMessage(row: Row): TranscriptMessage {
  return {
    sessionId: String(row.session_id),
    seq: Number(row.seq),
    role: String(row.role) as MessageRole,
    content: json(row.content),
    createdAt: Number(row.created_at),
    batch: num(row.batch),
  };
}

/**
 * An `audit_events` row as the verifier reads it (the event left as stored text).
 *
 * @example
 * ```ts
 * declare const verifier: import("./audit-chain.js").ChainVerifier;
 * declare const row: Row; // an events row
 * verifier.row(toChainRow(row));
 * ```
 */
export function toChainRow(row: Row): ChainRow {
  return {
    sessionId: String(row.session_id),
    seq: Number(row.seq),
    callId: String(row.call_id),
    type: String(row.type),
    tool: String(row.tool),
    at: Number(row.at),
    event: String(row.event),
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
  };
}

/**
 * An `audit_events` row as an AuditRecord.
 *
 * @example
 * ```ts
 * declare const rows: Row[]; // SELECT * FROM events
 * rows.map(toAuditRecord);
 * ```
 */
export function toAuditRecord(row: Row): AuditRecord {
  return {
    sessionId: String(row.session_id),
    seq: Number(row.seq),
    callId: String(row.call_id),
    type: String(row.type) as StoreEventType,
    tool: String(row.tool),
    at: Number(row.at),
    event: parseJson(String(row.event)) as StoreEvent,
    prevHash: String(row.prev_hash),
    hash: String(row.hash),
  };
}

/**
 * A `calls` row as the engines keep it.
 *
 * @example
 * ```ts
 * declare const row: Row; // a calls row
 * const call = toCallRow(row);
 * ```
 */
export function toCallRow(row: Row): CallRow {
  const writes = row.writes;
  const result = text(row.result);
  const read = readOutcome(row.outcome, result);
  return {
    sessionId: String(row.session_id),
    callId: String(row.call_id),
    tool: String(row.tool),
    writes: writes === null || writes === undefined ? undefined : writes === true || writes === 1,
    principal: text(row.principal),
    state: String(row.state) as CallState,
    status: text(row.status) as ToolResultStatus | undefined,
    reason: text(row.reason),
    decision: text(row.decision),
    rule: text(row.rule),
    dedupeKey: text(row.dedupe_key),
    argsHash: text(row.args_hash),
    owner: text(row.owner),
    outcome: read.outcome,
    result,
    seenAt: Number(row.seen_at),
    requestedAt: num(row.requested_at),
    claimedAt: num(row.claimed_at),
    startedAt: num(row.started_at),
    finishedAt: num(row.finished_at),
    decidedArgs: undefined,
    resultEcho: read.echo,
  };
}

/**
 * The recorded outcome of a call row, with the saved result when there is one.
 *
 * @example
 * ```ts
 * declare const row: import("./call-state.js").CallRow;
 * const outcome = outcomeOfRow(row); // undefined while the call has none
 * ```
 */
export function outcomeOfRow(row: CallRow): CallOutcome | undefined {
  if (!row.outcome) return undefined;
  if (row.result === undefined) return row.outcome;
  return { ...row.outcome, result: parseJson(row.result) as ToolResult };
}

/**
 * The answer of a claim on a row that cannot be claimed: it was seen, with its outcome if any.
 *
 * @example
 * ```ts
 * import { type CallRow, isClaimable } from "./call-state.js";
 * declare const row: CallRow | undefined; // the call's row, if any
 * const seen = row && !isClaimable(row) ? seenClaim(row) : undefined;
 * ```
 */
export function seenClaim(row: CallRow): ClaimResult {
  const outcome = outcomeOfRow(row);
  const call = { tool: row.tool, argsHash: row.argsHash };
  return outcome
    ? { status: "seen", state: row.state, outcome, ...call }
    : { status: "seen", state: row.state, ...call };
}

/**
 * A call row as callers see it: the saved result's text parsed into `outcome.result`.
 *
 * @example
 * ```ts
 * declare const rows: Row[]; // SELECT * FROM calls
 * rows.map((row) => toCallRecord(toCallRow(row)));
 * ```
 */
export function toCallRecord(row: CallRow): CallRecord {
  const { result: _result, decidedArgs: _args, ...record } = row;
  return { ...record, outcome: outcomeOfRow(row) };
}

/**
 * The columns of `calls`, in the order `callRowValues` gives them.
 *
 * @example
 * ```ts
 * `INSERT INTO calls (${CALL_COLUMNS.join(", ")}) ...`;
 * ```
 */
export const CALL_COLUMNS = [
  "session_id",
  "call_id",
  "tool",
  "writes",
  "principal",
  "state",
  "status",
  "reason",
  "decision",
  "rule",
  "dedupe_key",
  "owner",
  "outcome",
  "result",
  "seen_at",
  "requested_at",
  "claimed_at",
  "started_at",
  "finished_at",
  "args_hash",
] as const;

/**
 * A call row's values in `CALL_COLUMNS` order; `undefined` becomes null, text is made
 * storable (`storedText`). Booleans stay booleans: each engine converts them its own way.
 *
 * @example
 * ```ts
 * declare const insert: import("./sqlite/sqlite-driver.js").Statement; // INSERT INTO calls VALUES (…)
 * declare const row: import("./call-state.js").CallRow;
 * insert.run(...callRowValues(row));
 * ```
 */
export function callRowValues(row: CallRow): unknown[] {
  const values: unknown[] = [];
  appendCallRowValues(values, row);
  return values;
}

/**
 * Push a call row's values, as `callRowValues` gives them, onto `target`: the SQLite engine
 * writes a batch's rows straight into its multi-row statement's values, with no array per row.
 *
 * @example
 * ```ts
 * declare const insert: import("./sqlite/multi-row-insert.js").MultiRowInsert;
 * declare const row: import("./call-state.js").CallRow;
 * appendCallRowValues(insert.nextRow(), row);
 * ```
 */
export function appendCallRowValues(target: unknown[], row: CallRow): void {
  target.push(
    row.sessionId,
    row.callId,
    row.tool,
    row.writes ?? null,
    columnText(row.principal),
    row.state,
    columnText(row.status),
    columnText(row.reason),
    columnText(row.decision),
    columnText(row.rule),
    columnText(row.dedupeKey),
    columnText(row.owner),
    storedOutcome(row),
    row.result ?? null,
    row.seenAt,
    row.requestedAt ?? null,
    row.claimedAt ?? null,
    row.startedAt ?? null,
    row.finishedAt ?? null,
    columnText(rowArgsHash(row)),
  );
}

function columnText(value: string | undefined): string | null {
  return value === undefined ? null : storedText(value);
}

/**
 * An `approvals` row as an Approval.
 *
 * @example
 * ```ts
 * declare const row: Row; // an approvals row
 * const approval = toApproval(row);
 * ```
 */
export function toApproval(row: Row): Approval {
  return {
    id: String(row.id),
    sessionId: text(row.session_id),
    callId: String(row.call_id),
    tool: String(row.tool),
    canonicalArgs: String(row.canonical_args),
    argsHash: String(row.args_hash),
    rule: text(row.rule),
    reason: text(row.reason),
    requestedBy: String(row.requested_by),
    approvers: json(row.approvers) as string[] | undefined,
    createdAt: Number(row.created_at),
    expiresAt: num(row.expires_at),
    status: String(row.status) as ApprovalStatus,
    decidedBy: text(row.decided_by),
    decidedAt: num(row.decided_at),
    decisionReason: text(row.decision_reason),
    locallyAsserted: row.locally_asserted === true || row.locally_asserted === 1,
    scope: row.scope === "session" ? "session" : "once",
    grantKey: text(row.grant_key),
    grantText: text(row.grant_text),
  };
}

/** The `sessions` columns a new row is inserted with, in `sessionRowValues` order. */
export const SESSION_COLUMNS =
  "id, created_at, updated_at, principal, status, config_hash, title, metadata";

/**
 * A new session's values in `SESSION_COLUMNS` order (metadata as its JSON text).
 *
 * @example
 * ```ts
 * const values = sessionRowValues(
 *   { id: "ses_1", createdAt: 1, updatedAt: 1, principal: "agent", status: "active",
 *     configHash: "x", title: undefined, metadata: undefined },
 *   null,
 * ); // ["ses_1", 1, 1, "agent", "active", "x", null, null], in SESSION_COLUMNS order
 * ```
 */
export function sessionRowValues(session: Session, metadata: string | null): unknown[] {
  return [
    session.id,
    session.createdAt,
    session.updatedAt,
    session.principal,
    session.status,
    session.configHash,
    session.title ?? null,
    metadata,
  ];
}
