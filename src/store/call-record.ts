import type { ToolResult, ToolResultStatus } from "../checkpoint/tool-result.js";
import type { StoreEvent } from "./store-event.js";

/**
 * Where a call stands in the `calls` table:
 * - `requested`: seen (an event arrived), not claimed, no write started;
 * - `claimed`: `claimCall` reserved the id;
 * - `started`: a write's intent is on record and no outcome yet;
 * - `finished`: an outcome is recorded (ok, failed, refused or awaiting approval);
 * - `interrupted`: a write started and its process ended before it finished.
 */
export type CallState = "requested" | "claimed" | "started" | "finished" | "interrupted";

/**
 * The recorded outcome of a call, so that a repeated call id gets the same answer instead of a
 * second run.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * const outcome = await store.callOutcome("ses_1", "call_7");
 * if (outcome?.kind === "interrupted") console.log(outcome.message);
 * ```
 */
export interface CallOutcome {
  readonly kind: "finished" | "refused" | "awaiting_approval" | "interrupted";
  readonly status: ToolResultStatus;
  readonly reason: string | undefined;
  readonly message: string;
  /** The rendered output (capped) of a finished call. */
  readonly output: string | undefined;
  readonly approvalId: string | undefined;
  readonly durationMs: number | undefined;
  readonly at: number;
  /** The full result, when `recordCallResult` saved one. */
  readonly result?: ToolResult | undefined;
}

/** One row of the `calls` table. */
export interface CallRecord {
  readonly sessionId: string;
  readonly callId: string;
  readonly tool: string;
  /** Unknown until the call started. */
  readonly writes: boolean | undefined;
  readonly principal: string | undefined;
  readonly state: CallState;
  readonly status: ToolResultStatus | undefined;
  readonly reason: string | undefined;
  readonly decision: string | undefined;
  readonly rule: string | undefined;
  readonly dedupeKey: string | undefined;
  /** SHA-256 (hex) of the canonical arguments the call was claimed with; unknown before. */
  readonly argsHash?: string | undefined;
  /** The store instance (`host/pid/uuid`) that claimed or started the call. */
  readonly owner: string | undefined;
  readonly outcome: CallOutcome | undefined;
  /** When the call was first seen (its first event, claim or result). */
  readonly seenAt: number;
  readonly requestedAt: number | undefined;
  readonly claimedAt: number | undefined;
  readonly startedAt: number | undefined;
  readonly finishedAt: number | undefined;
}

/** Filters for `listCalls`; newest first unless `fromCallId` pages by call id. */
export interface CallFilter {
  readonly sessionId?: string;
  readonly callId?: string;
  readonly tool?: string;
  /** A result status (`ok`, `failed`, ...) or a call state (`started`, `interrupted`, ...). */
  readonly status?: string;
  /** Only calls first seen at or after this time (ms since the epoch). */
  readonly since?: number;
  /**
   * Keyset paging: calls whose id sorts at or after this one, in call id order (ascending)
   * instead of newest first. `""` starts at the first; the next page starts at the last id seen
   * (which comes again, first). An auditor reads a session of any size this way in flat memory.
   */
  readonly fromCallId?: string;
  /** Default 1000. */
  readonly limit?: number;
}

/** Facts `claimCall` may record with the claim. */
export interface ClaimOptions {
  readonly tool?: string;
  readonly writes?: boolean;
  readonly dedupeKey?: string;
  /** SHA-256 (hex) of the call's canonical arguments: a repeated id is compared against it. */
  readonly argsHash?: string;
  /**
   * For a call that only reads: check the id now, but commit the claim with the events queued
   * around it (at the caller's `flush`, or the next write) instead of in a transaction of its
   * own. Another process could claim the same id in between and both would read; a write must
   * never set it.
   */
  readonly defer?: boolean;
  /**
   * For a write: its intent (`started`, `writes: true`), committed in the claim's own
   * transaction with everything queued, so that a write costs one commit before its handler
   * runs. Taken only where the engine can (SQLite); the answer says whether it was
   * (`started: true`), else the caller emits the intent itself.
   */
  readonly start?: StoreEvent;
}

/**
 * The answer of `claimCall`: this process may run the call, or the id was seen before (with its
 * outcome when it has one; a claimed or started call without outcome must not run again).
 */
export type ClaimResult =
  | {
      readonly status: "claimed";
      /** The intent given as `start` was committed with the claim. */
      readonly started?: boolean;
    }
  | {
      readonly status: "seen";
      readonly state: CallState;
      readonly outcome?: CallOutcome;
      /** The recorded call's tool and arguments hash, to tell the same call from a reused id. */
      readonly tool?: string;
      readonly argsHash?: string | undefined;
    };

/** An earlier successful call with the same tool and dedupe key. */
export interface DuplicateCall {
  readonly callId: string;
  readonly result: ToolResult;
  readonly finishedAt: number;
}

/** Which started calls `markInterrupted` closes. */
export interface MarkInterruptedOptions {
  /** Only this session's calls. */
  readonly sessionId?: string;
  /**
   * Also calls whose owner may still be alive (another host, or a process that is still
   * running). Default false: only calls whose owning process is gone are marked. Use it after a
   * machine was lost, never while the owner may still be running.
   */
  readonly all?: boolean;
}
