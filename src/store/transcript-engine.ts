import type { MessageRow } from "./attestation-plan.js";
import type { Awaitable } from "./awaitable.js";
import type { TranscriptMessage } from "./transcript-message.js";

/**
 * An engine's transcript reads (its writes are on the write path, `WritePathEngine`).
 *
 * @example
 * ```ts
 * declare const engine: TranscriptEngine;
 * const messages = await engine.loadTranscript("ses_1");
 * ```
 */
export interface TranscriptEngine {
  loadTranscript(sessionId: string): Awaitable<TranscriptMessage[]>;
  /** Messages with their content text as stored. */
  listMessageRows(sessionId: string, afterSeq: number): Awaitable<MessageRow[]>;
}
