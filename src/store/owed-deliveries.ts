import type { AuditCheckpoint } from "./audit-checkpoint.js";

type Awaitable<T> = T | Promise<T>;

/**
 * Which signing processes may still owe the digest log copies of their checkpoints (ADR 0049).
 * A process's row is written in the commit of its first checkpoint and removed when it closed
 * with every copy delivered; a row whose owner is gone is a process that died between a commit
 * and a delivery, and recovery delivers what it signed, then removes the row. No extra commit on
 * the write path: one row per process, in a commit that happens anyway.
 *
 * @example
 * ```ts
 * import type { AuditCheckpoint } from "./audit-checkpoint.js";
 * declare const deliveries: OwedDeliveries;
 * declare const isGone: (owner: string) => boolean;
 * declare const deliver: (checkpoints: AuditCheckpoint[]) => Promise<void>;
 * for (const owner of await deliveries.owners()) {
 *   if (isGone(owner)) await deliver(await deliveries.signedBy(owner));
 * }
 * ```
 */
export interface OwedDeliveries {
  /** Owners with a row: processes running now, or dead with copies possibly owed. */
  owners(): Awaitable<string[]>;
  /** The checkpoints `owner` signed, by session then n: what it may owe. */
  signedBy(owner: string): Awaitable<AuditCheckpoint[]>;
  /** Every copy `owner` owed is delivered: remove its row. */
  settle(owner: string): Awaitable<void>;
  /** Hashes of the checkpoints whose copy may still be owed (their signer has a row). */
  owedHashes(sessionId: string | undefined): Awaitable<string[]>;
}
