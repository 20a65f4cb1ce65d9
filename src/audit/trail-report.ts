/** What kind of thing `docket audit verify` found wrong. */
export type TrailProblemKind =
  /** A link of the hash chain does not hold (an edit, a gap, a head that disagrees). */
  | "chain"
  /** The chain holds but differs from what was signed: it was recomputed after an edit. */
  | "rewritten"
  /** A signed attestation names events the store no longer has. */
  | "truncated"
  /** The digest log knows a session the store does not. */
  | "deleted_session"
  /** Events that no signed attestation covers at all. */
  | "forged_session"
  /** Events after the last signed attestation (a crash, a running session, or an insertion). */
  | "unsigned_tail"
  /** Transcript messages after the last signed attestation (the same three causes). */
  | "unsigned_messages"
  /**
   * A session row no attestation covers yet: created or updated just before a crash (or while
   * verify ran), or inserted or edited since.
   */
  | "unsigned_session"
  /** The sessions row differs from the one an attestation signed, or is gone. */
  | "session"
  | "bad_signature"
  /** Attestations missing, out of order, or not linked to their predecessor. */
  | "attestation_chain"
  /** An attestation in the store and not in the digest log, or the other way round. */
  | "digest_mismatch"
  /** An attestation whose copy its signer may still owe the digest log (ADR 0049). */
  | "undelivered"
  | "messages"
  | "calls"
  | "approvals"
  /** The digest log itself has lines that are not attestations. */
  | "digest_log";

/**
 * The kinds that say "not proven" rather than "tampered with": what the last signature does not
 * reach. A crash before signing, a session still being written, and an insertion all look like
 * this; verify says all three, and exits 3 rather than 1.
 *
 * @example
 * ```ts
 * UNPROVEN_KINDS.has("unsigned_tail"); // true
 * ```
 */
export const UNPROVEN_KINDS: ReadonlySet<TrailProblemKind> = new Set([
  "unsigned_tail",
  "unsigned_messages",
  "unsigned_session",
  "undelivered",
]);

/**
 * Events a docket signed on recovery, after the process that wrote them died before signing:
 * unsigned from the crash until `at`. Not a problem; said, because an insertion in that window
 * would look the same.
 */
export interface RecoveredSpan {
  readonly sessionId: string;
  /** The events recovery signed; 0 and 0 when it signed transcript messages only. */
  readonly fromSeq: number;
  readonly toSeq: number;
  /** The transcript messages recovery signed with them (messages written alone, ADR 0067). */
  readonly messages?: { readonly from: number; readonly to: number } | undefined;
  /** When recovery signed them (ms since the epoch). */
  readonly at: number;
  readonly message: string;
}

/**
 * What verify concluded: `verified` (everything it could check held and is signed), `unsigned`
 * (no tampering found, but something is past the last signature), `tampered` (proven).
 */
export type TrailVerdict = "verified" | "unsigned" | "tampered";

/** One problem: which session, from which seq, and what. */
export interface TrailProblem {
  readonly kind: TrailProblemKind;
  readonly sessionId: string;
  /** The first bad event seq (or message seq for `messages`, attestation n for attestation kinds). */
  readonly seq: number;
  readonly message: string;
}

/**
 * The report of `verifyTrail`: its verdict, the tampering it proved, what is past the last
 * signature, what recovery signed; `notProven` says plainly what could not be checked (no key,
 * no digest log).
 *
 * @example
 * ```ts
 * import { verifyStoreTrail } from "./verify-store-trail.js";
 * declare const store: import("../store/store.js").Store;
 * declare const publicKey: import("node:crypto").KeyObject;
 * declare const digests: import("./digest-log.js").DigestLog;
 * const report = await verifyStoreTrail(store, { publicKey, digests });
 * if (!report.ok) for (const p of report.problems) console.error(p.message);
 * ```
 */
export interface TrailReport {
  /** True only for the `verified` verdict. */
  readonly ok: boolean;
  readonly verdict: TrailVerdict;
  readonly storeId: string | undefined;
  readonly sessions: number;
  readonly events: number;
  /** How many signed attestations of the chains were checked. */
  readonly attestations: number;
  /**
   * The same number as `attestations`, under its name before ADR 0065, so that scripts reading
   * `docket audit verify --json` keep working for one release.
   *
   * @deprecated Read `attestations`.
   */
  readonly checkpoints: number; // legacy-name
  /** Proven tampering: an edit, a removal, a forgery. */
  readonly problems: readonly TrailProblem[];
  /** What the last signature does not reach (`UNPROVEN_KINDS`): not proven either way. */
  readonly unsigned: readonly TrailProblem[];
  /** Spans signed by recovery after a crash. */
  readonly recovered: readonly RecoveredSpan[];
  readonly notProven: readonly string[];
}

/**
 * The verdict of a report's problems and unsigned findings.
 *
 * @example
 * ```ts
 * trailVerdict([], []); // "verified"
 * ```
 */
export function trailVerdict(
  problems: readonly TrailProblem[],
  unsigned: readonly TrailProblem[],
): TrailVerdict {
  if (problems.length > 0) return "tampered";
  return unsigned.length > 0 ? "unsigned" : "verified";
}
