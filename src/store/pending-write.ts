import type { ToolResult } from "../checkpoint/tool-result.js";
import type { ClaimOptions } from "./call-record.js";
import {
  applyCallEvent,
  applyCallResult,
  type CallRow,
  isClaimable,
  newCallRow,
  type ResultEcho,
} from "./call-state.js";
import { CallTaken } from "./call-taken.js";
import { type PendingEvent, storedText } from "./pending-event.js";
import type { SessionPatch } from "./session-record.js";
import { isTerminal } from "./store-event.js";
import type { MessageRole } from "./transcript-message.js";

/** A message with its content already serialised. */
export interface MessageText {
  readonly role: MessageRole;
  readonly content: string;
}

/** A change to the session's row, made in the same transaction as its messages. */
export interface SessionUpdate {
  readonly patch: SessionPatch;
  /** The patch's metadata as JSON text, or null to keep it. */
  readonly metadata: string | null;
}

/**
 * A claim committed with the events around it instead of in a transaction of its own. A read's
 * is queued after the store checked that the id was free; if another process claimed it
 * meanwhile, the read has run anyway and the claim is dropped (its events still are appended:
 * they are what happened). A write's (`exclusive`) is committed with its intent, before the
 * handler runs: when the id is taken by then, the whole commit fails (`CallTaken`), so the
 * intent is never written and the write never runs.
 */
export interface PendingClaim {
  readonly kind: "claim";
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  readonly writes: boolean | undefined;
  readonly dedupeKey: string | undefined;
  readonly argsHash?: string | undefined;
  readonly at: number;
  /** A write's claim: taking an id that is not free fails the commit instead of being dropped. */
  readonly exclusive?: boolean;
}

/**
 * The claim of `callId` as the queue and the engines take it: the dedupe key cut to what a
 * column stores, the time given. A write's claim is `exclusive`.
 *
 * @example
 * ```ts
 * const claim = pendingClaim("s1", "c1", { tool: "write_file", writes: true }, Date.now(), true);
 * ```
 */
export function pendingClaim(
  sessionId: string,
  callId: string,
  options: ClaimOptions & { readonly tool?: string | undefined },
  at: number,
  exclusive = false,
): PendingClaim {
  return {
    kind: "claim",
    sessionId,
    callId,
    tool: options.tool ?? "",
    writes: options.writes,
    dedupeKey: options.dedupeKey === undefined ? undefined : storedText(options.dedupeKey),
    argsHash: options.argsHash,
    at,
    ...(exclusive ? { exclusive: true } : {}),
  };
}

/** A call's full result, queued to be committed with its `finished` event. */
export interface PendingResult {
  readonly kind: "result";
  readonly sessionId: string;
  readonly callId: string;
  readonly result: ToolResult;
  /** `result` as JSON, serialised (and so checked) when it was queued. */
  readonly resultText: string;
  /** Its message and output, taken with `resultText`. */
  readonly resultEcho: ResultEcho;
  readonly dedupeKey: string | undefined;
  readonly at: number;
}

/**
 * A batch of transcript messages (an assistant request and its results), queued by
 * `Store.queueBatch` to be committed with the audit items around it: one transaction, in order.
 */
export interface PendingMessages {
  readonly kind: "messages";
  readonly sessionId: string;
  readonly messages: readonly MessageText[];
  readonly createdAt: number;
  readonly session: SessionUpdate | undefined;
}

/** An item of the store's write queue that concerns one call (its row, or its chain). */
export type PendingCallWrite = PendingEvent | PendingClaim | PendingResult;

/** One item of the store's write queue: a call's event or row change, or transcript messages. */
export type PendingWrite = PendingCallWrite | PendingMessages;

/**
 * A queued item that settles a call's claim: its claim, its result, or its closing event.
 *
 * @example
 * ```ts
 * declare const item: PendingWrite;
 * if (settlesCall(item)) console.log(item.callId);
 * ```
 */
export function settlesCall(item: PendingWrite): item is PendingCallWrite {
  return (
    item.kind === "claim" ||
    item.kind === "result" ||
    (item.kind === "event" && isTerminal(item.event))
  );
}

/** The `calls` row key of an item: session and call id, NUL-separated. */
export function callKey(item: { readonly sessionId: string; readonly callId: string }): string {
  return `${item.sessionId}\u0000${item.callId}`;
}

/**
 * Fold one queued item into its call's row, as both engines do inside their append transaction.
 * Returns the row unchanged (same object) when the item does not change it.
 *
 * @example
 * ```ts
 * declare const claim: PendingClaim;
 * declare const result: PendingResult;
 * const owner = "store-1";
 * let row = foldCallWrite(undefined, claim, owner); // state "claimed"
 * row = foldCallWrite(row, result, owner);          // state "finished", result kept
 * ```
 */
export function foldCallWrite(
  row: CallRow | undefined,
  item: PendingCallWrite,
  owner: string,
): CallRow | undefined {
  switch (item.kind) {
    case "event":
      return applyCallEvent(row, item.sessionId, item.event, owner);
    case "claim": {
      if (row && !isClaimable(row, item)) {
        if (item.exclusive === true) throw new CallTaken(row);
        return row;
      }
      const base = row ?? newCallRow(item.sessionId, item.callId, item.tool, item.at);
      return {
        ...base,
        tool: base.tool || item.tool,
        writes: item.writes ?? base.writes,
        dedupeKey: item.dedupeKey ?? base.dedupeKey,
        argsHash: item.argsHash ?? base.argsHash,
        state: "claimed",
        claimedAt: item.at,
        owner,
      };
    }
    case "result":
      return applyCallResult(
        row,
        item.sessionId,
        item.callId,
        item.result,
        item.dedupeKey,
        item.at,
        item.resultText,
        item.resultEcho,
      );
  }
}
