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
 * A session's transcript and pending batch, read and written through the store. With `created`
 * (a session this run has just made, with no metadata, under its lease), the store holds nothing
 * this object has not written: the metadata is known to be empty and the transcript is what was
 * appended, so neither is read back.
 *
 * @example
 * ```ts
 * declare const store: import("../store/store.js").Store;
 * const transcript = sessionTranscript(store, "support-7");
 * const messages = await transcript.load();
 * ```
 */
export function sessionTranscript(
  store: Store,
  sessionId: string,
  {
    created = false,
    opening = [],
  }: {
    created?: boolean;
    /** A created session's messages committed with it (`store.startSession`). */
    opening?: readonly TranscriptMessage[];
  } = {},
) {
  // Runs of one session take turns (the harness serialises them), so within a run this object
  // is the only writer of the session's metadata: it is read once and then kept up to date.
  let known: SessionMetadata | undefined = created ? {} : undefined;
  // A session made by this run: its messages so far, all appended here (undefined otherwise).
  const appended: TranscriptMessage[] | undefined = created ? [...opening] : undefined;
  const metadata = async (): Promise<SessionMetadata> => {
    if (known) return known;
    const session = await store.getSession(sessionId);
    const value = session?.metadata;
    known = typeof value === "object" && value !== null ? (value as SessionMetadata) : {};
    return known;
  };
  return {
    async load(): Promise<TranscriptMessage[]> {
      if (appended) return [...appended];
      return (await store.loadTranscript(sessionId)).map(fromStored);
    },
    async append(message: TranscriptMessage): Promise<void> {
      await store.appendMessage(sessionId, { role: message.role, content: message });
      appended?.push(message);
    },
    async pendingBatch(): Promise<PendingBatch | undefined> {
      return (await metadata()).pendingBatch;
    },
    /**
     * Record the batch being run (or clear it). `queued`: committed with the store's next write,
     * at the latest the claim of the batch's first write, before that write runs.
     */
    async setPendingBatch(
      batch: PendingBatch | undefined,
      { queued = false }: { queued?: boolean } = {},
    ): Promise<void> {
      const { pendingBatch: _dropped, ...rest } = await metadata();
      const next = batch ? { ...rest, pendingBatch: batch } : rest;
      known = undefined;
      // A Store of the caller's own making, written before this method, is updated at once.
      if (queued && typeof store.queueSessionUpdate === "function") {
        await store.queueSessionUpdate(sessionId, { metadata: next });
      } else {
        await store.updateSession(sessionId, { metadata: next });
      }
      known = next;
    },
    /**
     * The assistant message and all its results, and the pending batch cleared: one unit,
     * committed with the calls' audit records (see `Store.queueBatch`) before it resolves. The
     * results go on (to listeners, to the model) only after it: a read's records and the last
     * write's outcome wait for this commit (ADR 0081).
     */
    async saveBatch(batch: PendingBatch, results: readonly TranscriptToolResult[]): Promise<void> {
      const assistant: TranscriptMessage = { role: "assistant", ...batch.assistant };
      const tool: TranscriptMessage = { role: "tool", results };
      const current = await metadata();
      const { pendingBatch: saved, ...rest } = current;
      known = undefined;
      await store.queueBatch(
        sessionId,
        { role: "assistant", content: assistant },
        [{ role: "tool", content: tool }],
        saved === undefined ? {} : { sessionPatch: { metadata: rest } },
      );
      await store.flush();
      known = saved === undefined ? current : rest;
      appended?.push(assistant, tool);
    },
  };
}

/** The transcript operations a run uses. */
export type SessionTranscript = ReturnType<typeof sessionTranscript>;
