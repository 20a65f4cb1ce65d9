import type { CallEvent } from "./call-event.js";
import type { ToolResult } from "./tool-result.js";

/** A recorded outcome of an earlier run of the same call id. */
export interface RecordedOutcome {
  readonly kind: "finished" | "refused" | "awaiting_approval" | "interrupted";
  readonly status: ToolResult["status"];
  readonly reason: string | undefined;
  readonly message: string;
  readonly output: string | undefined;
  readonly result?: ToolResult | undefined;
}

/** The call a call id is on record for: its tool and canonical arguments' hash, when known. */
export interface RecordedCall {
  readonly tool: string;
  readonly argsHash: string | undefined;
}

/**
 * What the checkpoint needs from a store to make calls safe to repeat: reserve a call id before
 * running it, keep its result, and find an earlier success of the same action. The store
 * implements it. A call is identified by session and id; its recorded outcome is returned for a
 * repeat only when the tool and the canonical arguments' hash match too.
 */
export interface CallLedger {
  claimCall(
    sessionId: string | undefined,
    callId: string,
    options?: {
      readonly tool?: string;
      readonly writes?: boolean;
      readonly dedupeKey?: string;
      /** SHA-256 (hex) of the call's canonical arguments, kept with the claim. */
      readonly argsHash?: string;
      /** A read-only call: the claim may be committed at the next flush. */
      readonly defer?: boolean;
      /**
       * A write's intent (`started`): a store that can commits it with the claim, in one
       * transaction, and answers `started: true`; otherwise the caller emits it.
       */
      readonly start?: CallEvent;
    },
  ): Promise<
    | { readonly status: "claimed"; readonly started?: boolean }
    | {
        readonly status: "seen";
        readonly state: string;
        readonly outcome?: RecordedOutcome | undefined;
        /**
         * The recorded call's tool and arguments hash. The id is the model's and may be reused:
         * the outcome is this call's only when both match (unknown means no match).
         */
        readonly tool?: string | undefined;
        readonly argsHash?: string | undefined;
      }
  >;
  recordCallResult(
    sessionId: string | undefined,
    callId: string,
    result: ToolResult,
    dedupeKey?: string,
    options?: { readonly defer?: boolean },
  ): Promise<void>;
  /**
   * Optional: read the records of these call ids now, in one go, for the claims that follow in
   * this batch. A hint: claims must answer the same with or without it.
   */
  prefetchCalls?(sessionId: string | undefined, callIds: readonly string[]): Promise<void>;
  /**
   * Optional: the recorded final outcome of a call id, if it has one (the store's). Before a
   * human is asked about a call, so that an id whose outcome is on record gets that answer
   * without a prompt for a call that would not run.
   */
  callOutcome?(sessionId: string | undefined, callId: string): Promise<RecordedOutcome | undefined>;
  /**
   * Optional: the call a call id is on record for (its tool and arguments hash), if the store
   * knows the id in this session. Read before the call is decided, so that an id reused for
   * another call is refused before any policy, approver or handler sees it; the claim checks
   * again (a store without this method is answered by the claim alone). A store that knows the
   * answer without a read (an id its batch read ahead) may give it at once, not as a promise.
   */
  recordedCall?(
    sessionId: string | undefined,
    callId: string,
  ): RecordedCall | undefined | Promise<RecordedCall | undefined>;
  /**
   * Optional: whether this call's result (its outcome) still waits for its commit (queued, or
   * being written). A store that answers it lets a write's outcome wait for the next commit (the
   * next write's claim carries it, ADR 0081); after a failed flush, a write that still waits ran
   * but is not on record, and its result is withheld.
   */
  awaitsCommit?(sessionId: string | undefined, callId: string): boolean;
  /**
   * Optional: commit everything deferred in the middle of a batch (a write's outcome before a
   * read's handler runs), keeping what was read ahead for the batch's next claims. Without it
   * the checkpoint calls `flush`.
   */
  commitQueued?(): Promise<void>;
  /** Commit everything deferred; the checkpoint calls it at the end of each dispatch and batch. */
  flush(): Promise<void>;
  findDuplicate(
    sessionId: string | undefined,
    tool: string,
    dedupeKey: string,
    sinceMs?: number,
  ): Promise<
    | { readonly callId: string; readonly result: ToolResult; readonly finishedAt: number }
    | undefined
  >;
}
