import type { ToolResult } from "../checkpoint/tool-result.js";
import { hashCanonical } from "../shared/canonical-json.js";
import { isAwaiting } from "./call-claimable.js";
import type { CallOutcome, CallRecord } from "./call-record.js";
import { primitiveJson } from "./json-members.js";
import { storedText } from "./pending-event.js";
import type { StoreEvent } from "./store-event.js";

export { type CallIdentity, isClaimable, isOtherCall } from "./call-claimable.js";

/** A calls row as the engines keep it: the record plus the saved result's JSON text. */
export interface CallRow extends CallRecord {
  /** JSON text of the ToolResult given to `recordCallResult`. */
  readonly result: string | undefined;
  /**
   * The arguments of the call's `decided` event while the row has no `argsHash`: hashed only
   * when the row is saved (`rowArgsHash`), and only if no claim brought the hash first. The
   * checkpoint hashes the arguments for its claim anyway; hashing them again here for every
   * call cost a SHA-256 and a canonical serialisation per call inside the write transaction.
   */
  readonly decidedArgs?: unknown;
  /**
   * The message and output of the result whose JSON is `result`, while they are at hand (it was
   * just given, or read back to complete the outcome): the outcome's message and output are then
   * stored only once, in the result, when they are the same (`storedOutcome`, schema 9).
   */
  readonly resultEcho?: ResultEcho | undefined;
}

/** A result's message and output as its JSON text has them. */
export interface ResultEcho {
  readonly message: unknown;
  /** A string, number, boolean or null output; undefined for any other (never compacted). */
  readonly output: unknown;
}

/**
 * The message and output of a result, taken when its JSON text is made: strings and numbers
 * cannot change afterwards, whatever the caller does to the result object.
 *
 * @example
 * ```ts
 * resultEcho({ callId: "c1", name: "echo", status: "ok", output: "hi", message: "echo succeeded.", durationMs: 3 });
 * // { message: "echo succeeded.", output: "hi" }
 * ```
 */
export function resultEcho(result: ToolResult): ResultEcho {
  const output = (result as { readonly output?: unknown }).output;
  return {
    message: result.message,
    output: output === null || typeof output !== "object" ? output : undefined,
  };
}

/**
 * A fresh row for a call id seen for the first time.
 *
 * @example
 * ```ts
 * newCallRow("ses_1", "call_1", "refund", Date.now());
 * ```
 */
export function newCallRow(
  sessionId: string,
  callId: string,
  tool: string,
  seenAt: number,
): CallRow {
  return {
    seenAt,
    sessionId,
    callId,
    tool,
    writes: undefined,
    principal: undefined,
    state: "requested",
    status: undefined,
    reason: undefined,
    decision: undefined,
    rule: undefined,
    dedupeKey: undefined,
    argsHash: undefined,
    owner: undefined,
    outcome: undefined,
    requestedAt: undefined,
    claimedAt: undefined,
    startedAt: undefined,
    finishedAt: undefined,
    result: undefined,
    // Every row has the same fields in the same order: the folds copy rows per event, and V8
    // copies objects of one shape fastest.
    decidedArgs: undefined,
    resultEcho: undefined,
  };
}

/**
 * Fold one event into its call's row. Both engines apply it inside the append transaction, so
 * the calls table always agrees with the audit trail. Returns the same object when nothing
 * changes. An outcome, once final, is kept: a repeated call id (refused as a duplicate) does not
 * overwrite the first call's outcome; only `awaiting_approval` gives way to what followed.
 *
 * @example
 * ```ts
 * declare const requestedEvent: import("./store-event.js").StoreEvent; // type "requested"
 * const row = applyCallEvent(undefined, "ses_1", requestedEvent, "host/1/abc");
 * row?.state; // "requested"
 * ```
 */
export function applyCallEvent(
  row: CallRow | undefined,
  sessionId: string,
  event: StoreEvent,
  owner: string,
): CallRow | undefined {
  const base =
    row ?? newCallRow(sessionId, storedText(event.callId), storedText(event.tool), event.at);
  switch (event.type) {
    case "requested":
      if (row && row.requestedAt !== undefined) return row;
      // A claim may have come first, without the tool's name.
      return {
        ...base,
        tool: base.tool || storedText(event.tool),
        principal: event.principal,
        requestedAt: event.at,
      };
    case "decided":
      if (!isOpen(base)) return row;
      // The decided arguments identify the call, so a call refused before its claim (its intent
      // could not be written) is still known as the same call when its id comes again.
      return {
        ...base,
        decision: event.decision,
        rule: event.rule,
        decidedArgs: base.argsHash === undefined ? (base.decidedArgs ?? event.args) : undefined,
      };
    case "started": {
      if (!isOpen(base)) return row;
      // After an approval, the call runs: its `awaiting_approval` outcome no longer stands.
      const resumed = base.state === "finished";
      const state = event.writes ? "started" : resumed ? "requested" : base.state;
      return {
        ...base,
        writes: event.writes,
        startedAt: event.at,
        owner,
        state,
        ...(resumed ? { status: undefined, reason: undefined, outcome: undefined } : {}),
      };
    }
    case "refused":
      // A refusal comes before any handler runs: one for a call that already started (or for
      // a repeated id) belongs to a second dispatch of the id, not to the call on record;
      // unless it is the refusal of this call's own intent, whose write failed and may have
      // been committed all the same (`intentFailed`, set by the store's queue).
      if (event.reason === "duplicate_call_id") return row;
      if (base.state === "started" && !isIntentRefusal(event)) return row;
      return finish(base, event) ?? row;
    case "finished":
    case "awaiting_approval":
      return finish(base, event) ?? row;
    case "interrupted": {
      if (base.state !== "started" && !isStartedRead(base)) return row;
      const outcome = outcomeOf(event);
      return {
        ...base,
        state: "interrupted",
        status: "failed",
        reason: "interrupted",
        outcome,
        finishedAt: event.at,
      };
    }
    default:
      return row;
  }
}

/**
 * Fold a result given to `recordCallResult`: it becomes the call's outcome when none is final
 * yet, and it is kept (with the dedupe key) for `findDuplicate` and `callOutcome` either way.
 *
 * @example
 * ```ts
 * declare const row: CallRow | undefined;
 * declare const result: import("../checkpoint/tool-result.js").ToolResult;
 * applyCallResult(row, "ses_1", "call_1", result, "refund:88421", Date.now());
 * ```
 */
export function applyCallResult(
  row: CallRow | undefined,
  sessionId: string,
  callId: string,
  result: ToolResult,
  dedupeKey: string | undefined,
  at: number,
  /** The result as JSON, when the caller has it already. */
  resultText: string = JSON.stringify(result),
  /** Its message and output when `resultText` was made. */
  echo: ResultEcho = resultEcho(result),
): CallRow {
  const base = row ?? newCallRow(sessionId, callId, storedText(String(result.name)), at);
  const kept = {
    ...base,
    result: resultText,
    resultEcho: echo,
    dedupeKey: dedupeKey ?? base.dedupeKey,
  };
  if (!mayFinish(base)) return kept;
  const outcome: CallOutcome = {
    kind:
      result.status === "refused"
        ? "refused"
        : result.status === "awaiting_approval"
          ? "awaiting_approval"
          : "finished",
    status: result.status,
    reason: result.reason,
    message: result.message,
    output: result.status === "ok" ? outputJson(result.output) : undefined,
    approvalId: result.status === "awaiting_approval" ? result.approvalId : undefined,
    durationMs: result.durationMs,
    at,
  };
  return {
    ...kept,
    state: "finished",
    status: result.status,
    reason: result.reason,
    outcome,
    finishedAt: base.finishedAt ?? at,
  };
}

/** A result's output as the outcome keeps it: its JSON, `null` for none. */
function outputJson(output: unknown): string {
  return primitiveJson(output) ?? JSON.stringify(output) ?? "null";
}

/** Not started and without a final outcome (waiting for approval counts as open). */
function finish(
  base: CallRow,
  event: Extract<StoreEvent, { type: "finished" | "refused" | "awaiting_approval" }>,
): CallRow | undefined {
  if (!mayFinish(base)) return undefined;
  const outcome = outcomeOf(event);
  return {
    ...base,
    state: "finished",
    status: outcome.status,
    reason: outcome.reason,
    outcome,
    finishedAt: event.at,
  };
}

function isOpen(row: CallRow): boolean {
  return row.state === "requested" || row.state === "claimed" || isAwaiting(row);
}

/**
 * A read that started and has no outcome. In the store its claim made it `claimed`; folded from
 * the chain alone (verify, which sees no claims) it is still `requested`: recovery's
 * `interrupted` must close it either way, or the table and the chain tell two stories.
 */
function isStartedRead(row: CallRecord): boolean {
  return (
    isReadInFlight(row) ||
    (row.state === "requested" && row.writes === false && row.startedAt !== undefined)
  );
}

/**
 * A read that was claimed and started (its `started` event sets `startedAt`; a read's state
 * stays `claimed`) and has no outcome: in flight, or cut short by its process ending.
 *
 * @example
 * ```ts
 * declare const row: CallRow;
 * isReadInFlight({ ...row, state: "claimed", writes: false, startedAt: 5 }); // true
 * ```
 */
export function isReadInFlight(row: CallRecord): boolean {
  return row.state === "claimed" && row.writes === false && row.startedAt !== undefined;
}

/**
 * The refusal the store marked as closing a call whose intent could not be recorded: part of the
 * event (so of its hash), so that folding the chain again agrees with the calls table.
 */
function isIntentRefusal(event: StoreEvent): boolean {
  return (event as { readonly intentFailed?: unknown }).intentFailed === true;
}

function mayFinish(row: CallRow): boolean {
  if (row.state === "interrupted") return false;
  return row.state !== "finished" || isAwaiting(row);
}

function outcomeOf(
  event: Extract<
    StoreEvent,
    { type: "finished" | "refused" | "awaiting_approval" | "interrupted" }
  >,
): CallOutcome {
  switch (event.type) {
    case "finished":
      return {
        kind: "finished",
        status: event.status,
        reason: event.reason,
        message: event.message,
        output: event.output,
        approvalId: undefined,
        durationMs: event.durationMs,
        at: event.at,
      };
    case "refused":
      return {
        kind: "refused",
        status: "refused",
        reason: event.reason,
        message: event.message,
        output: undefined,
        approvalId: undefined,
        durationMs: event.durationMs,
        at: event.at,
      };
    case "awaiting_approval":
      return {
        kind: "awaiting_approval",
        status: "awaiting_approval",
        reason: "approval_pending",
        message: `${event.tool} is waiting for approval ${event.approvalId}.`,
        output: undefined,
        approvalId: event.approvalId,
        durationMs: undefined,
        at: event.at,
      };
    case "interrupted":
      return {
        kind: "interrupted",
        status: "failed",
        reason: "interrupted",
        message: event.message,
        output: undefined,
        approvalId: undefined,
        durationMs: undefined,
        at: event.at,
      };
  }
}

/**
 * The arguments hash a row is saved with: the one it was claimed with, else that of its
 * decided arguments (a call refused before its claim is still known as the same call).
 *
 * @example
 * ```ts
 * declare const decidedEvent: import("./store-event.js").StoreEvent; // type "decided"
 * const row = applyCallEvent(undefined, "ses_1", decidedEvent, "host/1/abc");
 * if (row) rowArgsHash(row); // sha256 of its args
 * ```
 */
export function rowArgsHash(row: CallRow): string | undefined {
  if (row.argsHash !== undefined || row.decidedArgs === undefined) return row.argsHash;
  return decidedArgsHash(row.decidedArgs);
}

function decidedArgsHash(args: unknown): string | undefined {
  if (args === undefined) return undefined;
  try {
    return hashCanonical(args);
  } catch {
    return undefined;
  }
}
