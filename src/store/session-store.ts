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
}
