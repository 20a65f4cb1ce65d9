import * as crypto from "node:crypto";
import type { MessageRow } from "../store/attestation-plan.js";
import { type AuditAttestation, messageLinkHash } from "../store/audit-attestation.js";
import { type ChainRow, ChainVerifier, GENESIS_HASH } from "../store/audit-chain.js";
import type { ChainHeadRecord } from "../store/audit-record.js";
import {
  checkSignedSession,
  recoveredSpans,
  type SessionRowDigest,
} from "./check-signed-session.js";
import { compareDigestCopies } from "./compare-digest-copies.js";
import type { DigestContents } from "./digest-log.js";
import {
  type RecoveredSpan,
  type TrailProblem,
  type TrailReport,
  trailVerdict,
  UNPROVEN_KINDS,
} from "./trail-report.js";

/** What the verifier reads: a store, or an export file. */
export interface TrailSource {
  readonly storeId: string | undefined;
  readonly heads: readonly ChainHeadRecord[];
  /** Sessions with events or messages that may have no head (an export's lines). */
  readonly sessionIds?: readonly string[];
  /** The attestations kept with the events (the store's table, the export's lines). */
  readonly attestations: readonly AuditAttestation[];
  /** Hashes of attestations whose digest-log copy may still be owed (a store; ADR 0049). */
  readonly owed?: ReadonlySet<string>;
  /** Pages of one session's events, in seq order. */
  chainRows(sessionId: string, afterSeq: number): Promise<readonly ChainRow[]>;
  /** One session's messages, or undefined where the source has none to show (an export). */
  messages(sessionId: string): Promise<readonly MessageRow[] | undefined>;
  /** Sessions that have a row (a store; an export has none). */
  readonly sessionRows?: readonly string[];
  /** One session's row digest, or undefined when it has none; absent where rows are not kept. */
  sessionRow?(sessionId: string): Promise<SessionRowDigest | undefined>;
}

/** How to verify: with the public key and the digest log when the auditor has them. */
export interface VerifyTrailOptions {
  readonly publicKey?: crypto.KeyObject | undefined;
  readonly digests?: DigestContents | undefined;
  /** Only this session (the digest log's other sessions are then not looked at). */
  readonly sessionId?: string | undefined;
  /** Called with every event row of a session once its chain was read (table cross-checks). */
  readonly onSession?: (sessionId: string) => SessionObserver;
}

/**
 * Sees a session's event rows one at a time as verify reads them (none is kept), then reports
 * what it found: verify's memory stays flat however long a session is.
 */
export interface SessionObserver {
  row(row: ChainRow): void;
  finish(): Promise<TrailProblem[]>;
}

/**
 * Verify a trail: each chain link, then each attestation's signature, their order and links,
 * the chain against what was signed (rewritten, truncated, deleted, forged, unsigned tail), the
 * transcript against its signed fold, the store's copy against the digest log. Every problem is
 * reported, the first of each kind per session.
 *
 * @example
 * ```ts
 * declare const source: TrailSource; // a store's chain, or an export read back
 * declare const publicKey: import("node:crypto").KeyObject;
 * declare const digests: import("./digest-log.js").DigestContents;
 * const report = await verifyTrail(source, { publicKey, digests });
 * ```
 */
export async function verifyTrail(
  source: TrailSource,
  { publicKey, digests, sessionId, onSession }: VerifyTrailOptions = {},
): Promise<TrailReport> {
  const problems: TrailProblem[] = [];
  const unsigned: TrailProblem[] = [];
  const recovered: RecoveredSpan[] = [];
  const notProven: string[] = [];
  // What the last signature does not reach is not proven either way: reported apart.
  const found = (problem: TrailProblem) =>
    (UNPROVEN_KINDS.has(problem.kind) ? unsigned : problems).push(problem);
  const wanted = (id: string) => sessionId === undefined || id === sessionId;
  const digestAttestations = (digests?.attestations ?? []).filter((c) => wanted(c.sessionId));
  for (const bad of digests?.unreadable ?? []) {
    found({
      kind: "digest_log",
      sessionId: "",
      seq: bad.line,
      message: `the digest log's line ${bad.line} is ${bad.reason}`,
    });
  }
  if (!publicKey) {
    notProven.push(
      "no public key: the hash chains were checked, but anyone who can write the store can recompute them; signatures, rewritten chains, forged sessions and unsigned events were not checked",
    );
  }
  if (!digests) {
    notProven.push(
      "no digest log: a truncated tail or a deleted session whose attestations were deleted with it cannot be seen",
    );
  }
  const heads = new Map(
    source.heads.filter((h) => wanted(h.sessionId)).map((h) => [h.sessionId, h]),
  );
  const sessions = new Set<string>([
    ...heads.keys(),
    ...(source.sessionIds ?? []).filter(wanted),
    ...source.attestations.filter((c) => wanted(c.sessionId)).map((c) => c.sessionId),
    ...digestAttestations.map((c) => c.sessionId),
    ...(source.sessionRows ?? []).filter(wanted),
  ]);
  const owed = source.owed ?? new Set<string>();
  let events = 0;
  let checked = 0;
  for (const id of [...sessions].sort()) {
    const stored = source.attestations.filter((c) => c.sessionId === id);
    const delivered = digestAttestations.filter((c) => c.sessionId === id);
    const trusted = publicKey ? signedAttestations(id, stored, delivered, publicKey, found) : [];
    checked += trusted.length;
    if (publicKey) checkAttestationChain(id, trusted, found);
    if (digests && publicKey) compareDigestCopies(id, stored, delivered, owed, found);
    const observer = onSession?.(id);
    const signedSeqs = new Set(trusted.map((c) => c.seq));
    const chain = await readChain(source, id, heads.get(id), found, (row) => {
      observer?.row(row);
      return signedSeqs.has(row.seq);
    });
    events += chain.count;
    if (publicKey) checkAgainstSigned(id, chain, trusted, found);
    const messages = await source.messages(id);
    if (messages && publicKey) checkMessages(id, messages, trusted, found);
    if (publicKey && source.sessionRow) {
      checkSignedSession(id, await source.sessionRow(id), trusted, chain.count, found);
      for (const span of recoveredSpans(id, trusted)) recovered.push(span);
    }
    if (observer) for (const problem of await observer.finish()) found(problem);
  }
  const verdict = trailVerdict(problems, unsigned);
  return {
    ok: verdict === "verified",
    verdict,
    storeId: source.storeId,
    sessions: sessions.size,
    events,
    attestations: checked,
    checkpoints: checked, // legacy-name
    problems,
    unsigned,
    recovered,
    notProven,
  };
}

/** The attestations whose signature holds (store and digest copies merged by hash). */
function signedAttestations(
  sessionId: string,
  stored: readonly AuditAttestation[],
  delivered: readonly AuditAttestation[],
  key: crypto.KeyObject,
  found: (problem: TrailProblem) => void,
): AuditAttestation[] {
  const byHash = new Map<string, AuditAttestation>();
  let reported = false;
  for (const attestation of [...stored, ...delivered]) {
    if (byHash.has(attestation.hash) && attestation.hash !== "") continue;
    let valid = false;
    try {
      valid =
        attestation.hash !== "" &&
        attestation.sessionId === sessionId &&
        crypto.verify(
          null,
          Buffer.from(attestation.body),
          key,
          Buffer.from(attestation.signature, "base64"),
        );
    } catch {
      valid = false;
    }
    if (valid) byHash.set(attestation.hash, attestation);
    else if (!reported) {
      reported = true;
      found({
        kind: "bad_signature",
        sessionId,
        seq: attestation.seq,
        message: `attestation ${attestation.n} (event ${attestation.seq}) is not signed by this key: its signature does not verify`,
      });
    }
  }
  return [...byHash.values()].sort((a, b) => a.n - b.n || a.at - b.at);
}

function checkAttestationChain(
  sessionId: string,
  trusted: readonly AuditAttestation[],
  found: (problem: TrailProblem) => void,
): void {
  let prev = GENESIS_HASH;
  let seq = 0;
  for (const [index, attestation] of trusted.entries()) {
    const n = index + 1;
    const problem =
      attestation.n !== n
        ? attestation.n > n
          ? `attestation ${n} is missing (the next one found is ${attestation.n})`
          : `two different attestations ${attestation.n} are signed (a fork)`
        : attestation.prev !== prev
          ? `attestation ${n} does not name attestation ${n - 1} as its predecessor`
          : attestation.seq < seq
            ? `attestation ${n} signs event ${attestation.seq}, before attestation ${n - 1}'s event ${seq}`
            : undefined;
    if (problem) {
      found({ kind: "attestation_chain", sessionId, seq: attestation.seq, message: problem });
      return;
    }
    prev = attestation.hash;
    seq = attestation.seq;
  }
}

/** What verify keeps of a session's chain: its length, its end, the hashes at signed seqs. */
interface ChainSummary {
  readonly count: number;
  readonly last: number;
  readonly signedHashes: ReadonlyMap<number, string>;
}

/**
 * Read a session's whole chain page by page, checking each link; each row is shown to `each`
 * and dropped, its hash kept only where `each` says an attestation signs its seq.
 */
async function readChain(
  source: TrailSource,
  sessionId: string,
  head: ChainHeadRecord | undefined,
  found: (problem: TrailProblem) => void,
  each: (row: ChainRow) => boolean,
): Promise<ChainSummary> {
  const verifier = new ChainVerifier((id) => (id === sessionId ? head : undefined));
  const signedHashes = new Map<number, string>();
  let count = 0;
  let last = 0;
  let broken = false;
  for (let after = 0; ; ) {
    const page = await source.chainRows(sessionId, after);
    for (const row of page) {
      count += 1;
      last = row.seq;
      if (each(row)) signedHashes.set(row.seq, row.hash);
      if (!broken && verifier.row(row)) broken = true;
    }
    const end = page.at(-1);
    if (!end) break;
    after = end.seq;
  }
  const verdict = verifier.finish(head ? [sessionId] : []);
  if (!verdict.ok) {
    found({ kind: "chain", sessionId, seq: verdict.seq, message: verdict.problem });
  }
  return { count, last, signedHashes };
}

function checkAgainstSigned(
  sessionId: string,
  chain: ChainSummary,
  trusted: readonly AuditAttestation[],
  found: (problem: TrailProblem) => void,
): void {
  const bySeq = chain.signedHashes;
  const last = chain.last;
  if (trusted.length === 0) {
    if (chain.count > 0) {
      found({
        kind: "forged_session",
        sessionId,
        seq: 1,
        message: `no signed attestation covers any of this session's ${chain.count} events: it was not written by a docket holding this key (a forged session)`,
      });
    }
    return;
  }
  const latest = trusted.reduce((a, b) => (b.seq > a.seq ? b : a));
  if (chain.count === 0 && latest.seq > 0) {
    found({
      kind: "deleted_session",
      sessionId,
      seq: 1,
      message: `the session was deleted: attestation ${latest.n} signed ${latest.seq} events, the store has none`,
    });
    return;
  }
  let matched = 0;
  for (const attestation of [...trusted].sort((a, b) => a.seq - b.seq)) {
    if (attestation.seq === 0) continue;
    const hash = bySeq.get(attestation.seq);
    if (hash === undefined && attestation.seq > last) {
      found({
        kind: "truncated",
        sessionId,
        seq: last + 1,
        message: `events ${last + 1} to ${attestation.seq} are missing: attestation ${attestation.n} signed the chain up to event ${attestation.seq}, the store's ends at ${last} (a truncated tail)`,
      });
      return;
    }
    if (hash !== attestation.headHash) {
      found({
        kind: "rewritten",
        sessionId,
        seq: matched + 1,
        message: `events ${matched + 1} to ${attestation.seq} were rewritten: event ${attestation.seq}'s hash is not the one attestation ${attestation.n} signed (the chain was recomputed after an edit)`,
      });
      return;
    }
    matched = attestation.seq;
  }
  if (last > latest.seq) {
    found({
      kind: "unsigned_tail",
      sessionId,
      seq: latest.seq + 1,
      message: `events ${latest.seq + 1} to ${last} are not covered by a signed attestation: written after the last one by a session still running or a process that crashed before signing, or added by someone else (not proven either way)`,
    });
  }
}

function checkMessages(
  sessionId: string,
  messages: readonly MessageRow[],
  trusted: readonly AuditAttestation[],
  found: (problem: TrailProblem) => void,
): void {
  const folds = new Map<number, string>();
  let hash = GENESIS_HASH;
  let expected = 1;
  for (const message of messages) {
    if (message.seq !== expected) break;
    hash = messageLinkHash(hash, message);
    folds.set(message.seq, hash);
    expected += 1;
  }
  const count = expected - 1;
  let matched = 0;
  for (const attestation of [...trusted].sort((a, b) => a.messagesSeq - b.messagesSeq)) {
    if (attestation.messagesSeq === 0) continue;
    if (folds.get(attestation.messagesSeq) !== attestation.messagesHash) {
      found({
        kind: "messages",
        sessionId,
        seq: matched + 1,
        message:
          attestation.messagesSeq > count
            ? `messages ${count + 1} to ${attestation.messagesSeq} are missing from the transcript: attestation ${attestation.n} signed ${attestation.messagesSeq}`
            : `transcript messages ${matched + 1} to ${attestation.messagesSeq} contradict attestation ${attestation.n}: a message row was edited, removed or inserted`,
      });
      return;
    }
    matched = attestation.messagesSeq;
  }
  const signed = trusted.reduce((seq, c) => Math.max(seq, c.messagesSeq), 0);
  if (messages.length > signed) {
    found({
      kind: "unsigned_messages",
      sessionId,
      seq: signed + 1,
      message: `transcript messages ${signed + 1} to ${messages.length} are not covered by a signed attestation: a session still running, a crash before signing, or messages added by someone else (not proven either way)`,
    });
  }
}
