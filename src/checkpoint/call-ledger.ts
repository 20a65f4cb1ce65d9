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

/**
 * What the checkpoint needs from a store to make calls safe to repeat: reserve a call id before
 * running it, keep its result, and find an earlier success of the same action. The store
 * implements it.
 */
export interface CallLedger {
  claimCall(
    sessionId: string | undefined,
    callId: string,
    options?: {
      readonly tool?: string;
      readonly writes?: boolean;
      readonly dedupeKey?: string;
      /** A read-only call: the claim may be committed at the next flush. */
      readonly defer?: boolean;
    },
  ): Promise<
    | { readonly status: "claimed" }
    | {
        readonly status: "seen";
        readonly state: string;
        readonly outcome?: RecordedOutcome | undefined;
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
