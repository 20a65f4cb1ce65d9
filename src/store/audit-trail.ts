import type { EmitOptions, EventSink } from "../checkpoint/call-event.js";
import type { ChainRow } from "./audit-chain.js";
import type {
  AuditRecord,
  ChainHeadRecord,
  ChainVerification,
  EventFilter,
} from "./audit-record.js";
import type { StoreEvent } from "./store-event.js";

/**
 * The audit trail: every event appended to its session's hash chain, committed as the queue
 * says (see src/store/README.md, "Durability and buffering"), read back and verified. An
 * `EventSink`: give it to `createCheckpoint({ events })`. Part of `Store`; take this type where
 * only the trail is needed.
 *
 * @example
 * ```ts
 * async function brokenLink(trail: AuditTrail, sessionId: string) {
 *   await trail.flush();
 *   const verification = await trail.verifyChain(sessionId);
 *   return verification.ok ? undefined : verification;
 * }
 * ```
 */
export interface AuditTrail extends EventSink {
  /**
   * Append one event to its session's hash chain. An intent (`started` of a write) and a
   * terminal event are committed, with everything queued before them, before this resolves;
   * other events may be buffered briefly (see the engine's notes). With `{ defer: true }` a
   * terminal event other than `awaiting_approval` is buffered too, for a caller that flushes.
   */
  emit(event: StoreEvent, options?: EmitOptions): Promise<void>;
  /** Append several events in one transaction; resolves when all are committed. */
  emitMany(events: readonly StoreEvent[]): Promise<void>;
  /** Commit every buffered event. */
  flush(): Promise<void>;
  /** Ordered by session, then seq. */
  listEvents(filter?: EventFilter): Promise<AuditRecord[]>;
  /** Check one session's chain, or every chain: names the first broken link. */
  verifyChain(sessionId?: string): Promise<ChainVerification>;
  /** The sessions that have events, whether or not they have a chain head. */
  listChainSessions(sessionId?: string): Promise<string[]>;
  listChainHeads(sessionId?: string): Promise<ChainHeadRecord[]>;
  /** One session's events as stored (event JSON as text), after `afterSeq`, at most `limit`. */
  listChainRows(
    sessionId: string,
    options?: { readonly afterSeq?: number; readonly limit?: number },
  ): Promise<ChainRow[]>;
}
