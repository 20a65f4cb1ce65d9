import type { Awaitable } from "./awaitable.js";
import type { CallFilter, CallOutcome, CallRecord, DuplicateCall } from "./call-record.js";
import type { CallRow } from "./call-state.js";

/**
 * An engine's `calls` table reads, and recovery's release of a dead owner's claim (claims are
 * taken on the write path, `WritePathEngine`).
 *
 * @example
 * ```ts
 * declare const engine: CallEngine;
 * const open = await engine.openCalls(undefined); // claimed or started, for recovery
 * ```
 */
export interface CallEngine {
  loadCall(sessionId: string, callId: string): Awaitable<CallRow | undefined>;
  loadCalls(sessionId: string, callIds: readonly string[]): Awaitable<CallRow[]>;
  callOutcome(sessionId: string, callId: string): Awaitable<CallOutcome | undefined>;
  findDuplicate(
    sessionId: string,
    tool: string,
    dedupeKey: string,
    sinceMs: number,
  ): Awaitable<DuplicateCall | undefined>;
  listCalls(filter: CallFilter): Awaitable<CallRecord[]>;
  /** Rows of `calls` per session id, for the ids that have any (ids as stored). */
  countCalls(sessionIds: readonly string[]): Awaitable<Map<string, number>>;
  /** Claimed or started calls (one session or all), for recovery. */
  openCalls(sessionId: string | undefined): Awaitable<CallRecord[]>;
  /** Release a claim that never started, if its owner still holds it. */
  releaseClaim(call: CallRecord): Awaitable<void>;
}
