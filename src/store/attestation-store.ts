import type { MessageRow } from "./attestation-plan.js";
import type { AuditAttestation } from "./audit-attestation.js";

/**
 * Signed attestations (docs/audit.md): a store opened with a `signer` signs each moved
 * session's chain head and transcript hash, and keeps what a verifier reads back (the
 * attestations, the messages as stored). Part of `Store`; take this type where only
 * attestations are needed.
 *
 * @example
 * ```ts
 * async function signNow(attestations: AttestationStore): Promise<number> {
 *   const signed = await attestations.attest();
 *   return signed.length; // 0 without a signer
 * }
 * ```
 */
export interface AttestationStore {
  /** The store's random id, named by its attestations; undefined on a store older than schema 4. */
  storeId(): Promise<string | undefined>;
  /**
   * Sign the sessions that moved since their last attestation now (a store opened with a
   * `signer` also does it at the end of every batch and on close); [] without a signer.
   */
  attest(): Promise<AuditAttestation[]>;
  /**
   * `attest()` under its name before ADR 0065, kept for one release.
   *
   * @deprecated Call `attest()`.
   */
  checkpoint(): Promise<AuditAttestation[]>; // legacy-name
  /** Signed attestations in the store, by session then n. */
  listAttestations(sessionId?: string): Promise<AuditAttestation[]>;
  /**
   * Hashes of the attestations whose copy to the digest log may still be owed: signed by a
   * process running now, or by one that died before delivering and that recovery has not yet
   * made good (ADR 0049).
   */
  listOwedAttestations(sessionId?: string): Promise<string[]>;
  /** One session's messages with their content as stored, after `afterSeq`. */
  listMessageRows(sessionId: string, afterSeq?: number): Promise<MessageRow[]>;
}
