import type { ChainRow } from "./audit-chain.js";
import type {
  AuditRecord,
  ChainHeadRecord,
  ChainVerification,
  EventFilter,
} from "./audit-record.js";
import type { Awaitable } from "./awaitable.js";

/**
 * An engine's audit trail reads: events, chain heads and rows as stored, and the verifier
 * (its appends are on the write path, `WritePathEngine`).
 *
 * @example
 * ```ts
 * declare const engine: AuditTrailEngine;
 * const verification = await engine.verifyChain("ses_1");
 * ```
 */
export interface AuditTrailEngine {
  listEvents(filter: EventFilter): Awaitable<AuditRecord[]>;
  verifyChain(sessionId: string | undefined): Awaitable<ChainVerification>;
  /** Sessions that have events, head or not (one key lookup per session). */
  listChainSessions(sessionId: string | undefined): Awaitable<string[]>;
  listChainHeads(sessionId: string | undefined): Awaitable<ChainHeadRecord[]>;
  /** Events as stored (the event's JSON text, not parsed), for verifying and exporting. */
  listChainRows(sessionId: string, afterSeq: number, limit: number): Awaitable<ChainRow[]>;
}
