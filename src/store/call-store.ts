import type { CallLedger, RecordedCall } from "../checkpoint/call-ledger.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type {
  CallFilter,
  CallOutcome,
  CallRecord,
  ClaimOptions,
  ClaimResult,
  DuplicateCall,
  MarkInterruptedOptions,
} from "./call-record.js";

/**
 * The `calls` table: calls safe to repeat. The store's side of the checkpoint's `CallLedger`
 * (which it extends, so the two cannot drift apart), with the store's richer answers and what
 * recovery and the CLI read. Part of `Store`; take this type where only calls are needed.
 *
 * @example
 * ```ts
 * async function replay(calls: CallStore, sessionId: string, callId: string) {
 *   const claim = await calls.claimCall(sessionId, callId, { tool: "read_file" });
 *   return claim.status === "seen" ? claim.outcome : undefined; // never run twice
 * }
 * ```
 */
export interface CallStore extends CallLedger {
  /**
   * Reserve a call id before running it (atomic: the unique key of `calls`). `claimed`: run it.
   * `seen`: it was claimed, started or finished before; return the outcome, never run it again.
   */
  claimCall(
    sessionId: string | undefined,
    callId: string,
    options?: ClaimOptions,
  ): Promise<ClaimResult>;
  /**
   * Read the records of a batch's call ids in one go, for the deferred claims that follow (the
   * checkpoint calls it before a batch). Claims answer the same with or without it.
   */
  prefetchCalls(sessionId: string | undefined, callIds: readonly string[]): Promise<void>;
  /** The tool and arguments hash a call id is on record for in the session, if it is known. */
  recordedCall(
    sessionId: string | undefined,
    callId: string,
  ): RecordedCall | undefined | Promise<RecordedCall | undefined>;
  /** The recorded terminal outcome of a call id, if it has one. */
  callOutcome(sessionId: string | undefined, callId: string): Promise<CallOutcome | undefined>;
  /**
   * Keep a call's full result, and its dedupe key, for `findDuplicate` and `callOutcome`:
   * committed with everything queued before it, or with `{ defer: true }` at the next flush.
   */
  recordCallResult(
    sessionId: string | undefined,
    callId: string,
    result: ToolResult,
    dedupeKey?: string,
    options?: { readonly defer?: boolean },
  ): Promise<void>;
  /**
   * Commit what is queued without ending the batch: the rows read ahead stay, as after a write's
   * claim (its own rows are forgotten as they are queued), for the batch's next claims.
   */
  commitQueued(): Promise<void>;
  /**
   * Whether this call's result (its outcome) is still queued or being written: a write's outcome
   * waits for the next commit (ADR 0081), and after a failed flush this tells whether it was kept.
   */
  awaitsCommit(sessionId: string | undefined, callId: string): boolean;
  /**
   * The latest successful result of `tool` with the same dedupe key in the session, finished at
   * or after `sinceMs` (ms since the epoch; e.g. `Date.now() - windowMs`).
   */
  findDuplicate(
    sessionId: string | undefined,
    tool: string,
    dedupeKey: string,
    sinceMs?: number,
  ): Promise<DuplicateCall | undefined>;
  /** Newest first. */
  listCalls(filter?: CallFilter): Promise<CallRecord[]>;
  /**
   * How many calls each of `sessionIds` recorded, in one read (a list page counts its sessions
   * without loading their calls). Every id given is a key; one with no calls maps to 0.
   */
  countCalls(sessionIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * Close every started write whose process is gone with an `interrupted` event, and release
   * claims of gone processes that never started. Returns the calls it interrupted.
   */
  markInterrupted(options?: MarkInterruptedOptions): Promise<CallRecord[]>;
  /** Calls closed as interrupted, newest first. */
  listInterrupted(sessionId?: string): Promise<CallRecord[]>;
}
