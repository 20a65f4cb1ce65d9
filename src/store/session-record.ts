/** Where a session stands. */
export type SessionStatus = "active" | "suspended" | "completed" | "cancelled" | "failed";

/**
 * The statuses a session can have, for validation and help texts.
 *
 * @example
 * ```ts
 * SESSION_STATUSES.includes("active"); // true
 * ```
 */
export const SESSION_STATUSES: readonly SessionStatus[] = [
  "active",
  "suspended",
  "completed",
  "cancelled",
  "failed",
];

/**
 * One conversation with the model, as stored.
 *
 * @example
 * ```ts
 * declare const store: import("./store.js").Store;
 * const session = await store.createSession({ principal: "agent", configHash: "ab12..." });
 * session.status; // "active"
 * ```
 */
export interface Session {
  readonly id: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly principal: string;
  readonly status: SessionStatus;
  /** Hash of the configuration the session ran under. */
  readonly configHash: string;
  readonly title: string | undefined;
  readonly metadata: unknown;
}

/** What `createSession` needs. `id` defaults to `ses_<uuid>`, `status` to `active`. */
export interface NewSession {
  readonly id?: string;
  readonly principal: string;
  readonly configHash: string;
  readonly status?: SessionStatus;
  readonly title?: string;
  readonly metadata?: unknown;
}

/** What `updateSession` may change; absent fields stay as they are. */
export interface SessionPatch {
  readonly status?: SessionStatus;
  readonly title?: string;
  readonly metadata?: unknown;
}

/** Filters for `listSessions`; newest first. */
export interface SessionFilter {
  readonly status?: SessionStatus;
  readonly limit?: number;
}
