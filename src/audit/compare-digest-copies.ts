import type { AuditAttestation } from "../store/audit-attestation.js";
import type { TrailProblem } from "./trail-report.js";

/**
 * Hold a session's attestations in the store against their copies in the digest log (ADR 0049).
 * A copy only in the digest log means the store lost attestations (deleted, rolled back):
 * tampering. An attestation only in the store is tampering too (the log lost it, or it is another
 * log), unless its signer may still owe the copy (`owed`: a process running now, or one killed
 * between the commit and the delivery that recovery has not yet made good); then it is not
 * proven either way, and not even that when a later attestation that names it through its `prev`
 * links is in the log.
 *
 * @example
 * ```ts
 * import type { AuditAttestation } from "../store/audit-attestation.js";
 * import type { TrailProblem } from "./trail-report.js";
 * declare const stored: AuditAttestation[];
 * declare const delivered: AuditAttestation[];
 * const problems: TrailProblem[] = [];
 * compareDigestCopies("ses_1", stored, delivered, new Set(), (problem) => problems.push(problem));
 * ```
 */
export function compareDigestCopies(
  sessionId: string,
  stored: readonly AuditAttestation[],
  delivered: readonly AuditAttestation[],
  owed: ReadonlySet<string>,
  found: (problem: TrailProblem) => void,
): void {
  const inLog = new Set(delivered.map((c) => c.hash));
  const inStore = new Set(stored.map((c) => c.hash));
  const onlyLog = delivered.find((c) => !inStore.has(c.hash));
  if (onlyLog) {
    found({
      kind: "digest_mismatch",
      sessionId,
      seq: onlyLog.seq,
      message: `attestation ${onlyLog.n} (event ${onlyLog.seq}) is in the digest log but not in the store: the store's attestations were deleted`,
    });
  }
  const onlyStore = stored.filter((c) => c.hash !== "" && !inLog.has(c.hash));
  const lost = onlyStore.find((c) => !owed.has(c.hash));
  if (lost) {
    found({
      kind: "digest_mismatch",
      sessionId,
      seq: lost.seq,
      message: `attestation ${lost.n} (event ${lost.seq}) is in the store but not in the digest log, and no process owes its copy: the digest log lost it, or this is another digest log`,
    });
  }
  // A later delivered attestation chains back through an owed one: the log vouches for it.
  // A loop, not Math.max(...): a long session's copies would overflow the call's arguments.
  const lastDelivered = delivered.reduce((n, c) => Math.max(n, c.n), 0);
  const pending = onlyStore.find((c) => owed.has(c.hash) && c.n > lastDelivered);
  if (pending) {
    found({
      kind: "undelivered",
      sessionId,
      seq: pending.seq,
      message: `attestation ${pending.n} (event ${pending.seq}) is not yet in the digest log: its signer is still running, or was killed between the commit and the copy (the next open of the store delivers it)`,
    });
  }
}
