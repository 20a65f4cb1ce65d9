/** What kind of thing `docket audit verify` found wrong. */
export type TrailProblemKind =
  /** A link of the hash chain does not hold (an edit, a gap, a head that disagrees). */
  | "chain"
  /** The chain holds but differs from what was signed: it was recomputed after an edit. */
  | "rewritten"
  /** A signed checkpoint names events the store no longer has. */
  | "truncated"
  /** The digest log knows a session the store does not. */
  | "deleted_session"
  /** Events that no signed checkpoint covers at all. */
  | "forged_session"
  /** Events after the last signed checkpoint (a crash, a running session, or an insertion). */
  | "unsigned_tail"
  | "bad_signature"
  /** Checkpoints missing, out of order, or not linked to their predecessor. */
  | "checkpoint_chain"
  /** A checkpoint in the store and not in the digest log, or the other way round. */
  | "digest_mismatch"
  | "messages"
  | "calls"
  | "approvals"
  /** The digest log itself has lines that are not checkpoints. */
  | "digest_log";

/** One problem: which session, from which seq, and what. */
export interface TrailProblem {
  readonly kind: TrailProblemKind;
  readonly sessionId: string;
  /** The first bad event seq (or message seq for `messages`, checkpoint n for checkpoint kinds). */
  readonly seq: number;
  readonly message: string;
}

/**
 * The verdict of `verifyTrail`: `ok` only when every check it could run held and nothing was
 * found; `notProven` says plainly what could not be checked (no key, no digest log).
 *
 * @example
 * ```ts
 * const report = await verifyStoreTrail(store, { publicKey, digests });
 * if (!report.ok) for (const p of report.problems) console.error(p.message);
 * ```
 */
export interface TrailReport {
  readonly ok: boolean;
  readonly storeId: string | undefined;
  readonly sessions: number;
  readonly events: number;
  readonly checkpoints: number;
  readonly problems: readonly TrailProblem[];
  readonly notProven: readonly string[];
}
