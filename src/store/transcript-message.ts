/** Who wrote a transcript message. */
export type MessageRole = "system" | "user" | "assistant" | "tool";

/**
 * The roles a message can have.
 *
 * @example
 * ```ts
 * MESSAGE_ROLES.includes("tool"); // true
 * ```
 */
export const MESSAGE_ROLES: readonly MessageRole[] = ["system", "user", "assistant", "tool"];

/**
 * A message to save: a role and any JSON content (text, parts, tool calls, a tool result).
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * const sessionId = "ses_1";
 * await store.appendMessage(sessionId, { role: "user", content: "Refund order 88421" });
 * ```
 */
export interface NewMessage {
  readonly role: MessageRole;
  readonly content: unknown;
}

/** A saved message, in its session's order. */
export interface TranscriptMessage {
  readonly sessionId: string;
  /** 1, 2, 3, ... per session. */
  readonly seq: number;
  readonly role: MessageRole;
  readonly content: unknown;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  /** For the messages of one `saveBatch`: the seq of the assistant message that opened it. */
  readonly batch: number | undefined;
}
