import type { StoreEvent, StoreEventType } from "./store-event.js";

/**
 * One stored audit event: the event as received, where it sits in its session's hash chain,
 * and the two hashes that tie it to its neighbour.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * const [first] = await store.listEvents({ sessionId: "ses_1" });
 * first?.seq; // 1
 * first?.prevHash; // GENESIS_HASH
 * ```
 */
export interface AuditRecord {
  /** The chain the event belongs to: its session, or the default session ("") when it had none. */
  readonly sessionId: string;
  /** 1, 2, 3, ... per session. */
  readonly seq: number;
  readonly callId: string;
  readonly type: StoreEventType;
  readonly tool: string;
  /** Milliseconds since the epoch, from the event. */
  readonly at: number;
  readonly event: StoreEvent;
  readonly prevHash: string;
  readonly hash: string;
}

/** Filters for `listEvents`. Results are ordered by session, then seq. */
export interface EventFilter {
  readonly sessionId?: string;
  readonly callId?: string;
  readonly tool?: string;
  readonly type?: StoreEventType;
  /** Only events at or after this time (ms since the epoch). */
  readonly since?: number;
  /** Only events after this seq (with `sessionId`: for paging). */
  readonly afterSeq?: number;
  /**
   * Only results that labelled their session (`finished` events with `openWorld: true` or a
   * `private` reason; see `isLabelledResult`). A store finds them without reading each event
   * of a long session; a store that does not know the filter returns more events, never fewer.
   */
  readonly labelled?: boolean;
  /** Default 1000. */
  readonly limit?: number;
}

/**
 * What `verifyChain` found: every link holds, or the first one that does not.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * const check = await store.verifyChain();
 * if (!check.ok) console.error(`session ${check.sessionId}, event ${check.seq}: ${check.problem}`);
 * ```
 */
export type ChainVerification =
  | { readonly ok: true; readonly checked: number; readonly sessions: number }
  | {
      readonly ok: false;
      readonly sessionId: string;
      readonly seq: number;
      readonly problem: string;
    };

/**
 * A chain's head as the store keeps it: its session, last seq and last hash.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * const heads: ChainHeadRecord[] = await store.listChainHeads();
 * ```
 */
export interface ChainHeadRecord {
  readonly sessionId: string;
  readonly seq: number;
  readonly hash: string;
}
