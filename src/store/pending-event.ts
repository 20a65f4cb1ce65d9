import { DocketError } from "../errors/docket-error.js";
import { eventJson } from "./event-json.js";
import { isStoreEventType, type StoreEvent } from "./store-event.js";

/**
 * A string as a database column keeps it: well-formed UTF-8 (a lone surrogate becomes U+FFFD, as
 * the drivers would make it anyway) and without NUL (PostgreSQL refuses it in text). Ids and
 * names come from a model and may be hostile; the event's JSON keeps them exactly, escaped.
 *
 * @example
 * ```ts
 * storedText("call\u0000\ud800"); // "call\ufffd\ufffd"
 * ```
 */
export function storedText(text: string): string {
  // The same few long strings (a session id, the owner) come again and again, event after
  // event: the last ones found storable as they are are not scanned again. A short string is
  // scanned as fast as it is compared.
  const long = text.length >= REMEMBERED_LENGTH;
  if (long) {
    if (text === safe0) return text;
    if (text === safe1) {
      safe1 = safe0;
      safe0 = text;
      return text;
    }
    if (text === safe2) {
      safe2 = safe1;
      safe1 = safe0;
      safe0 = text;
      return text;
    }
  }
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0 || code > 0x7f) {
      return Buffer.from(text, "utf8").toString("utf8").replaceAll("\u0000", "\ufffd");
    }
  }
  if (long) {
    safe2 = safe1;
    safe1 = safe0;
    safe0 = text;
  }
  return text;
}

/** Strings at least this long are remembered once found storable. */
const REMEMBERED_LENGTH = 16;
/** The last long strings `storedText` found storable unchanged (ASCII without NUL), newest first. */
let safe0 = "";
let safe1 = "";
let safe2 = "";

/** An event ready to append: its chain and its canonical JSON text (what the hash covers). */
export interface PendingEvent {
  readonly kind: "event";
  readonly event: StoreEvent;
  /** The chain, as stored (`storedText`). */
  readonly sessionId: string;
  /** The call id and tool name, as stored. */
  readonly callId: string;
  readonly tool: string;
  readonly json: string;
}

/**
 * Check an event's shape and serialise it once, before it joins the queue, so that a bad event
 * fails its own `emit` and never poisons a batch.
 *
 * @example
 * ```ts
 * declare const event: import("./store-event.js").StoreEvent;
 * const pending = prepareEvent(event, ""); // pending.sessionId is "" when event.sessionId is undefined
 * ```
 */
export function prepareEvent(event: StoreEvent, defaultSession: string): PendingEvent {
  if (typeof event !== "object" || event === null) {
    throw new DocketError("invalid_event", "An audit event must be an object.");
  }
  if (!isStoreEventType(event.type)) {
    throw new DocketError(
      "invalid_event",
      `Unknown audit event type ${JSON.stringify(event.type)}.`,
    );
  }
  if (typeof event.callId !== "string" || typeof event.tool !== "string") {
    throw new DocketError("invalid_event", "An audit event needs a string callId and tool.");
  }
  if (!Number.isSafeInteger(event.at)) {
    throw new DocketError(
      "invalid_event",
      "An audit event needs `at`: integer milliseconds since the epoch.",
    );
  }
  const session = event.sessionId ?? defaultSession;
  if (typeof session !== "string") {
    throw new DocketError("invalid_event", "An audit event's sessionId must be a string.");
  }
  const sessionId = storedText(session);
  let json: string;
  try {
    json = eventJson(event);
  } catch (error) {
    throw new DocketError(
      "invalid_event",
      `An audit event could not be serialised: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  return {
    kind: "event",
    event,
    sessionId,
    callId: storedText(event.callId),
    tool: storedText(event.tool),
    json,
  };
}
