import type { KeyObject } from "node:crypto";
import type { Approval } from "../store/approval-record.js";
import type { AuditAttestation } from "../store/audit-attestation.js";
import { legacySessionRowHash, sessionRowHash } from "../store/session-row-hash.js";
import type { Store } from "../store/store.js";
import { TableCrossCheck } from "./cross-check-tables.js";
import type { DigestLog } from "./digest-log.js";
import { type TrailProblem, type TrailReport, trailVerdict } from "./trail-report.js";
import { verifyTrail } from "./verify-trail.js";

const PAGE = 5000;
const ALL = 1_000_000_000;
/** How many times a session that moved while it was read is read again. */
const LIVE_RETRIES = 3;

/** What `verifyStoreTrail` checks with. */
export interface VerifyStoreTrailOptions {
  readonly publicKey?: KeyObject | undefined;
  readonly digests?: DigestLog | undefined;
  readonly sessionId?: string | undefined;
}

/**
 * Verify a store's whole trail (or one session's): the chains, the signed attestations against
 * the public key and the digest log, the transcript, the sessions rows, and the `calls` and
 * `approvals` rows against the chain. Read-only. A session written to while it was read (its
 * head moved) is read again before anything found in it is reported: a live session's tables
 * and chain are read at different moments, and that is not tampering.
 *
 * @example
 * ```ts
 * import { openDigestLog } from "./digest-log.js";
 * declare const store: import("../store/store.js").Store;
 * declare const publicKey: import("node:crypto").KeyObject;
 * const log = await openDigestLog("/home/me/.config/docket/audit-digests.jsonl");
 * const report = await verifyStoreTrail(store, { publicKey, digests: log });
 * process.exitCode = report.verdict === "verified" ? 0 : report.verdict === "unsigned" ? 3 : 1;
 * ```
 */
export async function verifyStoreTrail(
  store: Store,
  options: VerifyStoreTrailOptions = {},
): Promise<TrailReport> {
  let { report, marks } = await verifyOnce(store, options);
  for (let attempt = 0; attempt < LIVE_RETRIES && !report.ok; attempt += 1) {
    const moved = await movedSessions(store, options.digests, report, marks);
    if (moved.length === 0) break;
    const runs = await Promise.all(
      moved.map(async (id) => verifyOnce(store, { ...options, sessionId: id })),
    );
    const again = runs.map((run) => run.report);
    marks = new Map([...marks, ...runs.flatMap((run) => [...run.marks])]);
    const ids = new Set(moved);
    const keep = (p: TrailProblem) => !ids.has(p.sessionId);
    const problems = [...report.problems.filter(keep), ...again.flatMap((r) => r.problems)];
    const unsigned = [...report.unsigned.filter(keep), ...again.flatMap((r) => r.unsigned)];
    const verdict = trailVerdict(problems, unsigned);
    report = { ...report, ok: verdict === "verified", verdict, problems, unsigned };
  }
  return report;
}

/**
 * Where a session stood when verify read it: its chain head, its last attestation in the store
 * and its last copy in the digest log. A live writer moves any of the three between verify's
 * reads (an attestation is committed, then copied to the log), and that is not tampering.
 */
type SessionMark = string;

function sessionMark(
  head: number,
  stored: readonly AuditAttestation[],
  delivered: readonly AuditAttestation[],
): SessionMark {
  // A loop, not Math.max(...list): a long session's attestations would overflow the arguments.
  const last = (list: readonly AuditAttestation[]) => list.reduce((n, c) => Math.max(n, c.n), 0);
  return `${head}/${last(stored)}/${last(delivered)}`;
}

/** The sessions with findings that moved since the report read them. */
async function movedSessions(
  store: Store,
  digests: DigestLog | undefined,
  report: TrailReport,
  read: ReadonlyMap<string, SessionMark>,
): Promise<string[]> {
  const ids = new Set([...report.problems, ...report.unsigned].map((p) => p.sessionId));
  if (ids.size === 0) return [];
  const storeId = await store.storeId();
  const log = digests && storeId !== undefined ? await digests.read(storeId) : undefined;
  const moved: string[] = [];
  for (const id of ids) {
    const [head] = await store.listChainHeads(id);
    const stored = await store.listAttestations(id);
    const delivered = (log?.attestations ?? []).filter((c) => c.sessionId === id);
    const mark = sessionMark(head?.seq ?? 0, stored, delivered);
    if (mark !== (read.get(id) ?? sessionMark(0, [], []))) moved.push(id);
  }
  return moved;
}

async function verifyOnce(
  store: Store,
  { publicKey, digests, sessionId }: VerifyStoreTrailOptions,
): Promise<{ report: TrailReport; marks: Map<string, SessionMark> }> {
  const storeId = await store.storeId();
  // The digest log is read before the store: a signer commits an attestation, then copies it to
  // the log, so a copy read first is in the store read after unless the store lost it. Read the
  // other way round, an attestation committed between the two reads looked deleted (issue 38).
  const delivered = digests && storeId !== undefined ? await digests.read(storeId) : undefined;
  // Loaded here, not imported: the driver module loads node:sqlite only when a spill opens.
  const { openNodeSqlite } = await import("../store/sqlite/node-sqlite-database.js");
  // "" is SQLite's private temporary database: a file nobody else can open, deleted on close.
  const openSpill = () => openNodeSqlite("");
  const approvals = new Map<string, Approval[]>();
  for (const approval of await store.listApprovals({ limit: ALL })) {
    const key = approval.sessionId ?? store.defaultSession;
    if (sessionId !== undefined && key !== sessionId) continue;
    approvals.set(key, [...(approvals.get(key) ?? []), approval]);
  }
  const heads = await store.listChainHeads(sessionId);
  const attestations = await store.listAttestations(sessionId);
  const sessionRows =
    sessionId === undefined
      ? (await store.listSessions({ limit: ALL })).map((s) => s.id)
      : (await store.getSession(sessionId))
        ? [sessionId]
        : [];
  const report = await verifyTrail(
    {
      storeId,
      heads,
      // Sessions with events and no head are read (and reported) with the rest: one pass.
      sessionIds: await store.listChainSessions(sessionId),
      attestations,
      owed: new Set(await store.listOwedAttestations(sessionId)),
      chainRows: (id, afterSeq) => store.listChainRows(id, { afterSeq, limit: PAGE }),
      messages: (id) => store.listMessageRows(id),
      sessionRows,
      sessionRow: async (id) => {
        const session = await store.getSession(id);
        return (
          session && {
            hash: sessionRowHash(session),
            legacyHash: legacySessionRowHash(session),
            updatedAt: session.updatedAt,
          }
        );
      },
    },
    {
      publicKey,
      digests: delivered,
      sessionId,
      onSession: (id) => {
        const check = new TableCrossCheck(id, { openSpill });
        return {
          row: (row) => check.row(row),
          finish: async () => {
            // A page of rows at a time, in call id order: memory stays flat whatever the size
            // of the session (issue 33.7).
            try {
              for (let from = ""; ; ) {
                const page = await store.listCalls({
                  sessionId: id,
                  fromCallId: from,
                  limit: PAGE,
                });
                const fresh = page[0]?.callId === from && from !== "" ? page.slice(1) : page;
                check.callsPage(fresh);
                const last = page.at(-1);
                if (page.length < PAGE || !last) break;
                from = last.callId;
              }
              return [...check.callsDone(), ...check.approvals(approvals.get(id) ?? [])];
            } finally {
              check.close();
            }
          },
        };
      },
    },
  );
  let result: TrailReport = report;
  if (storeId === undefined) {
    result = {
      ...result,
      notProven: [
        ...result.notProven,
        "the store predates signed attestations (schema < 4): open it once with this docket to upgrade it",
      ],
    };
  }
  // Where each session with findings stood when it was read: one that moved since is read again.
  const findings = new Set([...result.problems, ...result.unsigned].map((p) => p.sessionId));
  const bySession = (list: readonly AuditAttestation[]) => {
    const grouped = new Map<string, AuditAttestation[]>();
    for (const c of list) {
      if (!findings.has(c.sessionId)) continue;
      const group = grouped.get(c.sessionId);
      if (group) group.push(c);
      else grouped.set(c.sessionId, [c]);
    }
    return grouped;
  };
  const stored = bySession(attestations);
  const copies = bySession(delivered?.attestations ?? []);
  const headSeq = new Map(heads.map((h) => [h.sessionId, h.seq]));
  const marks = new Map<string, SessionMark>();
  for (const id of findings) {
    marks.set(id, sessionMark(headSeq.get(id) ?? 0, stored.get(id) ?? [], copies.get(id) ?? []));
  }
  return { report: result, marks };
}
