import type { AuditAttestation } from "./audit-attestation.js";

type Awaitable<T> = T | Promise<T>;

/**
 * Which signing processes may still owe the digest log copies of their attestations (ADR 0049).
 * A process's row is written in the commit of its first attestation and removed when it closed
 * with every copy delivered; a row whose owner is gone is a process that died between a commit
 * and a delivery, and recovery delivers what it signed, then removes the row. No extra commit on
 * the write path: one row per process, in a commit that happens anyway.
 *
 * @example
 * ```ts
 * import type { AuditAttestation } from "./audit-attestation.js";
 * declare const deliveries: OwedDeliveries;
 * declare const isGone: (owner: string) => boolean;
 * declare const deliver: (attestations: AuditAttestation[]) => Promise<void>;
 * for (const owner of await deliveries.owners()) {
 *   if (isGone(owner)) await deliver(await deliveries.signedBy(owner));
 * }
 * ```
 */
export interface OwedDeliveries {
  /** Owners with a row: processes running now, or dead with copies possibly owed. */
  owners(): Awaitable<string[]>;
  /** The attestations `owner` signed, by session then n: what it may owe. */
  signedBy(owner: string): Awaitable<AuditAttestation[]>;
  /** Every copy `owner` owed is delivered: remove its row. */
  settle(owner: string): Awaitable<void>;
  /** Hashes of the attestations whose copy may still be owed (their signer has a row). */
  owedHashes(sessionId: string | undefined): Awaitable<string[]>;
}
