import type { RowAttestation } from "./attestation-plan.js";
import type { AuditAttestation } from "./audit-attestation.js";
import type { PendingWrite, SessionUpdate } from "./pending-write.js";
import type { TranscriptMessage } from "./transcript-message.js";

/** The sessions a transcript write signs in its own commit, and with what. */
export interface BatchAttestation extends RowAttestation {
  readonly sessions: readonly string[];
}

/** A transcript write as committed: its messages, and the attestations signed with them. */
export interface SavedMessages {
  readonly messages: TranscriptMessage[];
  readonly attestations: AuditAttestation[];
}

/**
 * The sessions whose row a write changes: the queued transcript batches that carry a session
 * patch, and the write's own batch when it does. Each is signed in the commit that changes it
 * (ADR 0067), as `updateSession` is (ADR 0064): no crash leaves a patched row unsigned.
 *
 * @example
 * ```ts
 * declare const queued: readonly import("./pending-write.js").PendingWrite[];
 * patchedSessions(queued, "ses_1", { patch: { metadata: {} }, metadata: "{}" }); // ["ses_1", ...]
 * ```
 */
export function patchedSessions(
  items: readonly PendingWrite[],
  sessionId?: string,
  update?: SessionUpdate,
): string[] {
  const sessions = new Set<string>();
  for (const item of items) {
    if (item.kind === "messages" && item.session !== undefined) sessions.add(item.sessionId);
  }
  if (sessionId !== undefined && update !== undefined) sessions.add(sessionId);
  return [...sessions].sort();
}
