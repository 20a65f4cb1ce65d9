import { DocketError } from "../errors/docket-error.js";
import { type PendingEvent, prepareEvent } from "./pending-event.js";
import { isIntent, type StoreEvent } from "./store-event.js";

/**
 * The intent a write's claim commits with it, prepared and checked: it must be that call's
 * intent (`started` of a write). None given, none returned.
 *
 * @example
 * ```ts
 * declare const start: import("./store-event.js").StoreEvent; // { type: "started", writes: true, … }
 * const intent = claimIntent(start, "ses_1", "call_1", "default");
 * ```
 */
export function claimIntent(
  start: StoreEvent | undefined,
  sessionId: string,
  callId: string,
  defaultSession: string,
): PendingEvent | undefined {
  if (start === undefined) return undefined;
  const intent = prepareEvent(start, defaultSession);
  if (!isIntent(intent.event) || intent.sessionId !== sessionId || intent.callId !== callId) {
    throw new DocketError("invalid_event", "A claim's start must be the intent of that call.");
  }
  return intent;
}
