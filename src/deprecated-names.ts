/**
 * Names docket exported before ADR 0065 split the three meanings of "checkpoint": the dispatcher
 * kept the word, its call events became `CallEvent`, and the signed chain heads became
 * attestations. Each old name is an alias of the new one for one release, so code written
 * against it still compiles; the rename script (ADR 0065) leaves this file alone.
 */
import type { CallEvent, CallEventType } from "./checkpoint/call-event.js";
import type { AttestationSigner, AuditAttestation } from "./store/audit-attestation.js";

/**
 * One step of one call through the checkpoint.
 *
 * @deprecated Renamed `CallEvent` (ADR 0065).
 * @example
 * ```ts
 * const seen: CheckpointEvent[] = [];
 * ```
 */
export type CheckpointEvent = CallEvent;

/**
 * The `type` of a call event.
 *
 * @deprecated Renamed `CallEventType` (ADR 0065).
 * @example
 * ```ts
 * const first: CheckpointEventType = "requested";
 * ```
 */
export type CheckpointEventType = CallEventType;

/**
 * A signed statement about one session's chain at one moment.
 *
 * @deprecated Renamed `AuditAttestation` (ADR 0065).
 * @example
 * ```ts
 * const signed: AuditCheckpoint[] = [];
 * ```
 */
export type AuditCheckpoint = AuditAttestation;

/**
 * What signs attestations and copies them to the digest log.
 *
 * @deprecated Renamed `AttestationSigner` (ADR 0065).
 * @example
 * ```ts
 * declare const signer: CheckpointSigner;
 * ```
 */
export type CheckpointSigner = AttestationSigner;
