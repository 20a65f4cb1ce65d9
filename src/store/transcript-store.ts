import type { SessionPatch } from "./session-record.js";
import type { NewMessage, TranscriptMessage } from "./transcript-message.js";

/** Options of `Store.saveBatch`. */
export interface SaveBatchOptions {
  /** Applied to the session's row in the batch's transaction. */
  readonly sessionPatch?: SessionPatch;
}

/**
 * A session's transcript: the messages of its turns, appended in order, a tool-calling turn and
 * its results always together. Part of `Store`; take this type where only the transcript is
 * needed.
 *
 * @example
 * ```ts
 * async function lastText(transcript: TranscriptStore, sessionId: string) {
 *   const messages = await transcript.loadTranscript(sessionId);
 *   return messages.at(-1)?.content;
 * }
 * ```
 */
export interface TranscriptStore {
  appendMessage(sessionId: string, message: NewMessage): Promise<TranscriptMessage>;
  /**
   * An assistant message that requests tools and all of its results, in one transaction: no
   * reader ever sees the request without its results. `sessionPatch` changes the session's row
   * in the same transaction (the loop clears its pending batch this way).
   */
  saveBatch(
    sessionId: string,
    assistant: NewMessage,
    results: readonly NewMessage[],
    options?: SaveBatchOptions,
  ): Promise<TranscriptMessage[]>;
  /**
   * Like `saveBatch` (one transaction, the same checks), but queued: committed with the audit
   * items around it at the next write of the queue (an intent, a flush, a read of the store) or
   * at the latest when the event loop is next idle. Order is kept. A crash before then loses
   * the batch whole, never half of it. The harness queues batches this way and flushes before
   * it hands the results on, so the batch commits with the last write's outcome and the reads'
   * records (a write's intent is committed before it runs, whatever is queued). PostgreSQL saves
   * the batch at once, after what is queued (its audit appends run a locking protocol of their
   * own and cannot share the batch's transaction).
   */
  queueBatch(
    sessionId: string,
    assistant: NewMessage,
    results: readonly NewMessage[],
    options?: SaveBatchOptions,
  ): Promise<void>;
  loadTranscript(sessionId: string): Promise<TranscriptMessage[]>;
}
