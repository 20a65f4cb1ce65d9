import { expect } from "vitest";
import type { TranscriptMessage } from "../../../src/loop/transcript-message.js";
import type { Store } from "../../../src/store/store.js";

/**
 * Assert that a session's saved transcript holds only whole batches: every assistant message
 * that requested tools was saved in one unit with a tool message answering all its calls, in
 * order, and no batch is left pending. Returns the messages, for further assertions.
 *
 * @example
 * ```ts
 * const messages = await expectWholeBatches(store, result.sessionId);
 * ```
 */
export async function expectWholeBatches(
  store: Store,
  sessionId: string,
): Promise<TranscriptMessage[]> {
  const saved = await store.loadTranscript(sessionId);
  for (const [index, row] of saved.entries()) {
    const message = row.content as TranscriptMessage;
    expect(message.role).toBe(row.role);
    if (message.role !== "assistant" || message.toolCalls.length === 0) continue;
    const next = saved[index + 1];
    expect(next?.role, `message ${row.seq} is followed by its results`).toBe("tool");
    expect(row.batch).toBe(row.seq);
    expect(next?.batch).toBe(row.seq);
    const answer = next?.content as TranscriptMessage | undefined;
    const results = answer?.role === "tool" ? answer.results : [];
    expect(results.map((r) => r.callId)).toEqual(message.toolCalls.map((c) => c.id));
  }
  const metadata = (await store.getSession(sessionId))?.metadata as
    | { pendingBatch?: unknown }
    | undefined;
  expect(metadata?.pendingBatch).toBeUndefined();
  return saved.map((row) => row.content as TranscriptMessage);
}
