import type { RowAttestation, SessionUpdated } from "./attestation-plan.js";
import type { AuditAttestation } from "./audit-attestation.js";
import type { Awaitable } from "./awaitable.js";
import type { Session, SessionFilter, SessionPatch } from "./session-record.js";

/**
 * An engine's sessions table: the rows `SessionStore` reads and writes, a change signed in its
 * own commit when the store signs.
 *
 * @example
 * ```ts
 * declare const engine: SessionEngine;
 * const newest = await engine.listSessions({ limit: 10 });
 * ```
 */
export interface SessionEngine {
  /** Insert a new session's row; with `sign`, its first attestation in the same commit (returned). */
  insertSession(
    session: Session,
    metadata: string | null,
    sign?: RowAttestation,
  ): Awaitable<AuditAttestation[]>;
  getSession(id: string): Awaitable<Session | undefined>;
  listSessions(filter: SessionFilter): Awaitable<Session[]>;
  /**
   * Update a session's row (undefined when there is none); with `sign`, its attestation in the
   * same commit, so the change is never acknowledged unsigned.
   */
  updateSession(
    id: string,
    patch: SessionPatch,
    metadata: string | null,
    now: number,
    sign?: RowAttestation,
  ): Awaitable<SessionUpdated | undefined>;
}
