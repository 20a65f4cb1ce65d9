import type { NewSession, Session, SessionFilter, SessionPatch } from "./session-record.js";

/**
 * The sessions a store keeps: one row per session (its principal, configuration hash, state),
 * the unit every transcript, chain, call and lease belongs to. Part of `Store`; take this type
 * where only sessions are needed.
 *
 * @example
 * ```ts
 * async function rename(sessions: SessionStore, id: string): Promise<void> {
 *   const session = await sessions.getSession(id);
 *   if (session) await sessions.updateSession(id, { title: `${session.title ?? id} (copy)` });
 * }
 * ```
 */
export interface SessionStore {
  createSession(input: NewSession): Promise<Session>;
  getSession(id: string): Promise<Session | undefined>;
  /** Newest first. */
  listSessions(filter?: SessionFilter): Promise<Session[]>;
  /** Throws DocketError("unknown_session") when there is no such session. */
  updateSession(id: string, patch: SessionPatch): Promise<Session>;
  /**
   * Like `updateSession` (the same checks), but queued: committed, and signed, with the next
   * write of the store's queue (a write's claim, a flush, a transcript write), in order with
   * what is queued around it. It resolves once queued, not once kept: a crash before that commit
   * loses the change. The loop records a reply's pending batch this way, so that it rides in
   * the first write's claim. PostgreSQL applies it at once, as `updateSession`.
   */
  queueSessionUpdate(id: string, patch: SessionPatch): Promise<void>;
}
