import type { CallEvent } from "../checkpoint/call-event.js";
import type { SystemEvent } from "../system-events/system-event.js";

/**
 * Appended by the store, never by the checkpoint: a write call that started (its intent is on
 * record) and whose process ended before it finished. It closes the call like `finished` does,
 * so the call is reported and never silently run again.
 */
export interface InterruptedEvent {
  readonly type: "interrupted";
  readonly callId: string;
  readonly tool: string;
  readonly sessionId: string | undefined;
  /** Milliseconds since the epoch: when the interruption was noticed. */
  readonly at: number;
  readonly reason: "interrupted";
  readonly message: string;
  /** When the intent (`started`) was recorded. */
  readonly startedAt: number | undefined;
  /** The store instance that held the call when it stopped. */
  readonly owner: string | undefined;
}

/**
 * Every event the audit trail keeps: the checkpoint's call events, the store's own
 * `interrupted`, and system events (no call: a policy reload, …).
 *
 * @example
 * ```ts
 * const event: StoreEvent = { type: "log", callId: "c1", tool: "t", sessionId: "s", at: Date.now(), message: "hi", data: null };
 * declare const store: import("./store.js").Store;
 * await store.emit(event);
 * ```
 */
export type StoreEvent = CallEvent | InterruptedEvent | SystemEvent;

/** The `type` of each stored event. */
export type StoreEventType = StoreEvent["type"];

const TERMINAL: ReadonlySet<string> = new Set([
  "finished",
  "refused",
  "awaiting_approval",
  "interrupted",
]);

const KNOWN: ReadonlySet<string> = new Set([
  "requested",
  "decided",
  "approval_requested",
  "approved",
  "approval_denied",
  "awaiting_approval",
  "started",
  "refused",
  "finished",
  "late_completion",
  "log",
  "interrupted",
  "system",
]);

/**
 * True for an intent: the `started` event of a tool that writes. It must be durable before the
 * handler runs, so the store commits it (and everything before it) before `emit` resolves.
 *
 * @example
 * ```ts
 * declare const started: Extract<StoreEvent, { type: "started" }>; // with writes: true
 * isIntent(started); // true
 * ```
 */
export function isIntent(event: StoreEvent): boolean {
  return event.type === "started" && event.writes;
}

/**
 * True for the event that closes a call: `finished`, `refused`, `awaiting_approval` or
 * `interrupted`.
 *
 * @example
 * ```ts
 * declare const refused: Extract<StoreEvent, { type: "refused" }>;
 * isTerminal(refused); // true
 * ```
 */
export function isTerminal(event: StoreEvent): boolean {
  return TERMINAL.has(event.type);
}

/**
 * True when `type` names an event the store knows.
 *
 * @example
 * ```ts
 * isStoreEventType("started"); // true
 * ```
 */
export function isStoreEventType(type: unknown): type is StoreEventType {
  return typeof type === "string" && KNOWN.has(type);
}
