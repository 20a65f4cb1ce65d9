import type { Store } from "../store/store.js";
import type { TranscriptMessage as StoredMessage } from "../store/transcript-message.js";
import type {
  TranscriptMessage,
  TranscriptToolCall,
  TranscriptToolResult,
} from "./transcript-message.js";

/** An assistant reply whose calls are being run, kept until its results are saved with it. */
export interface PendingBatch {
  readonly assistant: { readonly text: string; readonly toolCalls: readonly TranscriptToolCall[] };
  /** Results final so far (ok, refused, failed), by position: a model may reuse an id. */
  readonly results: readonly (TranscriptToolResult | null)[];
}

interface SessionMetadata {
  readonly pendingBatch?: PendingBatch;
  readonly [key: string]: unknown;
}

function fromStored(message: StoredMessage): TranscriptMessage {
  // Messages are stored as docket's own transcript shape; the role column repeats the role.
  return message.content as TranscriptMessage;
}

/**
 * A session's transcript and pending batch, read and written through the store.
 *
 * @example
 * ```ts
 * const transcript = sessionTranscript(store, sessionId);
 * const messages = await transcript.load();
 * ```
 */
export function sessionTranscript(store: Store, sessionId: string) {
  const metadata = async (): Promise<SessionMetadata> => {
    const session = await store.getSession(sessionId);
    const value = session?.metadata;
    return typeof value === "object" && value !== null ? (value as SessionMetadata) : {};
  };
  return {
    async load(): Promise<TranscriptMessage[]> {
      return (await store.loadTranscript(sessionId)).map(fromStored);
    },
    async append(message: TranscriptMessage): Promise<void> {
      await store.appendMessage(sessionId, { role: message.role, content: message });
    },
    async pendingBatch(): Promise<PendingBatch | undefined> {
      return (await metadata()).pendingBatch;
    },
    async setPendingBatch(batch: PendingBatch | undefined): Promise<void> {
      const { pendingBatch: _dropped, ...rest } = await metadata();
      await store.updateSession(sessionId, {
        metadata: batch ? { ...rest, pendingBatch: batch } : rest,
      });
    },
    /** The assistant message and all its results, as one unit; then the pending batch is cleared. */
    async saveBatch(batch: PendingBatch, results: readonly TranscriptToolResult[]): Promise<void> {
      const assistant: TranscriptMessage = { role: "assistant", ...batch.assistant };
      const tool: TranscriptMessage = { role: "tool", results };
      await store.saveBatch(sessionId, { role: "assistant", content: assistant }, [
        { role: "tool", content: tool },
      ]);
      const { pendingBatch: _saved, ...rest } = await metadata();
      await store.updateSession(sessionId, { metadata: rest });
    },
  };
}

/** The transcript operations a run uses. */
export type SessionTranscript = ReturnType<typeof sessionTranscript>;
