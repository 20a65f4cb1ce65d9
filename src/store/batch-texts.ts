import { DocketError } from "../errors/docket-error.js";
import type { MessageText, SessionUpdate } from "./pending-write.js";
import type { SessionPatch } from "./session-record.js";
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
  return { texts, update: patch === undefined ? undefined : sessionUpdate(patch) };
}

/**
 * A session patch as stored: checked, its metadata as JSON text (null: left as it is).
 *
 * @example
 * ```ts
 * sessionUpdate({ metadata: { step: 2 } }); // { patch: { metadata: { step: 2 } }, metadata: '{"step":2}' }
 * ```
 */
export function sessionUpdate(patch: SessionPatch): SessionUpdate {
  checkSessionPatch(patch);
  const metadata =
    patch.metadata === undefined
      ? null
      : jsonText(patch.metadata, "invalid_session", "The metadata");
  return { patch, metadata };
}
