import type { SignOptions, UnsignedTail } from "./attestation-plan.js";
import type { AttestationSigner, AuditAttestation } from "./audit-attestation.js";
import type { Awaitable } from "./awaitable.js";
import type { OwedDeliveries } from "./owed-deliveries.js";

/**
 * An engine's signed attestations (docs/audit.md): signing under each session's write lock,
 * what recovery finds unsigned, and who may owe digest-log copies.
 *
 * @example
 * ```ts
 * declare const engine: AttestationEngine;
 * const unsigned = await engine.unsignedTails(); // after a crash
 * ```
 */
export interface AttestationEngine {
  /** Which signing processes may owe digest-log copies (ADR 0049). */
  readonly deliveries: OwedDeliveries;
  /** The store's random id (schema 4); undefined on an older store. */
  storeId(): Awaitable<string | undefined>;
  /**
   * Sign and write the next attestation of each session whose chain or transcript moved since its
   * last one, under the session's write lock; returns what was written.
   */
  writeAttestations(
    sessions: readonly string[],
    signer: AttestationSigner,
    at: number,
    options?: SignOptions,
  ): Awaitable<AuditAttestation[]>;
  /** Sessions whose chain runs past their last attestation (recovery after a crash). */
  unsignedTails(): Awaitable<UnsignedTail[]>;
  listAttestations(sessionId: string | undefined): Awaitable<AuditAttestation[]>;
}
