import { DocketError } from "../errors/docket-error.js";
import type { MessageText, SessionUpdate } from "./pending-write.js";
import type { SaveBatchOptions } from "./store.js";
import { checkSessionPatch, jsonText, messageContent } from "./store-input.js";
import type { NewMessage } from "./transcript-message.js";

/**
 * A batch's messages as stored, and its session change; checked before anything is written.
 *
 * @example
 * ```ts
 * declare const assistant: import("./transcript-message.js").NewMessage; // the reply with its calls
 * declare const results: readonly import("./transcript-message.js").NewMessage[];
 * const { texts, update } = batchTexts(assistant, results, { sessionPatch: { metadata: {} } });
 * ```
 */
export function batchTexts(
  assistant: NewMessage,
  results: readonly NewMessage[],
  { sessionPatch: patch }: SaveBatchOptions,
): { texts: MessageText[]; update: SessionUpdate | undefined } {
  if (patch !== undefined) checkSessionPatch(patch);
  if (assistant?.role !== "assistant") {
    throw new DocketError(
      "invalid_message",
      "A batch opens with the assistant message that requested the tools.",
    );
  }
  const texts = [assistant, ...results].map((message) => ({
    role: message.role,
    content: messageContent(message),
  }));
  if (patch === undefined) return { texts, update: undefined };
  const metadata =
    patch.metadata === undefined
      ? null
      : jsonText(patch.metadata, "invalid_session", "The metadata");
  return { texts, update: { patch, metadata } };
}
