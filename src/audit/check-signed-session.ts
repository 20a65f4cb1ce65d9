import type { AuditAttestation } from "../store/audit-attestation.js";
import type { RecoveredSpan, TrailProblem } from "./trail-report.js";

/** A session's row as verify compares it: its hash (`sessionRowHash`) and when it last changed. */
export interface SessionRowDigest {
  readonly hash: string;
  /**
   * The row's hash over the canonical JSON before RFC 8785 (`legacySessionRowHash`), which the
   * attestations of stores written before signed (ADR 0062). Left out, only `hash` is accepted.
   */
  readonly legacyHash?: string | undefined;
  readonly updatedAt: number;
}

/**
 * Hold a session's row against the attestations that signed it: a row that differs from the one
 * the latest attestation signed was edited (tampered), unless it changed after that attestation
 * (an update not yet signed: a crash, a session still running, or an edit that also moved its
 * time: not proven either way). A row no attestation covers at all, with no events, is a session
 * created just before a crash, or an inserted one: also not proven.
 *
 * @example
 * ```ts
 * import type { TrailProblem } from "./trail-report.js";
 * declare const digest: SessionRowDigest; // the session row as stored
 * declare const trusted: readonly import("../store/audit-attestation.js").AuditAttestation[];
 * const problems: TrailProblem[] = [];
 * checkSignedSession("ses_1", digest, trusted, 4, (problem) => problems.push(problem));
 * ```
 */
export function checkSignedSession(
  sessionId: string,
  row: SessionRowDigest | undefined,
  trusted: readonly AuditAttestation[],
  events: number,
  found: (problem: TrailProblem) => void,
): void {
  const signed = [...trusted].reverse().find((c) => c.sessionHash !== undefined);
  if (!row) {
    if (signed) {
      found({
        kind: "session",
        sessionId,
        seq: 0,
        message: `the session's row is gone: attestation ${signed.n} signed it`,
      });
    }
    return;
  }
  if (trusted.length === 0) {
    if (events === 0) {
      found({
        kind: "unsigned_session",
        sessionId,
        seq: 0,
        message:
          "no signed attestation covers this session's row and it has no events: created just before a crash, or inserted by someone else",
      });
    }
    return;
  }
  if (!signed || signed.sessionHash === row.hash) return;
  if (row.legacyHash !== undefined && signed.sessionHash === row.legacyHash) return;
  const latest = trusted.at(-1) as AuditAttestation;
  if (signed === latest && row.updatedAt > latest.at) {
    found({
      kind: "unsigned_session",
      sessionId,
      seq: 0,
      message: `the session's row (principal, title, status, metadata) changed after attestation ${latest.n}: an update not yet signed (a crash just after it, or a session still running), or an edit`,
    });
    return;
  }
  found({
    kind: "session",
    sessionId,
    seq: 0,
    message: `the session's row (principal, title, status, metadata) is not the one attestation ${signed.n} signed: it was edited`,
  });
}

/**
 * The spans of a session that recovery signed after a crash, for the report.
 *
 * @example
 * ```ts
 * declare const trusted: readonly import("../store/audit-attestation.js").AuditAttestation[];
 * recoveredSpans("ses_1", trusted); // [{ fromSeq: 5, toSeq: 9, ... }]
 * ```
 */
export function recoveredSpans(
  sessionId: string,
  trusted: readonly AuditAttestation[],
): RecoveredSpan[] {
  const spans: RecoveredSpan[] = [];
  let before = 0;
  let beforeMessages = 0;
  for (const attestation of trusted) {
    const events = attestation.seq > before;
    const messages = attestation.messagesSeq > beforeMessages;
    if (attestation.recovered && (events || messages)) {
      const when = new Date(attestation.at).toISOString();
      const what = [
        events ? `events ${before + 1} to ${attestation.seq}` : "",
        messages ? `transcript messages ${beforeMessages + 1} to ${attestation.messagesSeq}` : "",
      ]
        .filter(Boolean)
        .join(" and ");
      spans.push({
        sessionId,
        fromSeq: events ? before + 1 : 0,
        toSeq: events ? attestation.seq : 0,
        messages: messages ? { from: beforeMessages + 1, to: attestation.messagesSeq } : undefined,
        at: attestation.at,
        message: `${what} were signed by recovery at ${when}: the process that wrote them died before signing (a crash), or they were inserted before recovery; the signature cannot tell these apart`,
      });
    }
    before = Math.max(before, attestation.seq);
    beforeMessages = Math.max(beforeMessages, attestation.messagesSeq);
  }
  return spans;
}
