import type { KeyObject } from "node:crypto";
import type { Approval } from "../store/approval-record.js";
import type { Store } from "../store/store.js";
import { crossCheckApprovals, crossCheckCalls } from "./cross-check-tables.js";
import type { DigestLog } from "./digest-log.js";
import type { TrailReport } from "./trail-report.js";
import { verifyTrail } from "./verify-trail.js";

const PAGE = 5000;
const ALL = 1_000_000_000;

/**
 * Verify a store's whole trail (or one session's): the chains, the signed checkpoints against
 * the public key and the digest log, the transcript, and the `calls` and `approvals` rows
 * against the chain. Read-only.
 *
 * @example
 * ```ts
 * const report = await verifyStoreTrail(store, { publicKey, digests: log });
 * process.exitCode = report.ok ? 0 : 1;
 * ```
 */
export async function verifyStoreTrail(
  store: Store,
  {
    publicKey,
    digests,
    sessionId,
  }: {
    publicKey?: KeyObject | undefined;
    digests?: DigestLog | undefined;
    sessionId?: string;
  } = {},
): Promise<TrailReport> {
  const storeId = await store.storeId();
  const approvals = new Map<string, Approval[]>();
  for (const approval of await store.listApprovals({ limit: ALL })) {
    const key = approval.sessionId ?? store.defaultSession;
    approvals.set(key, [...(approvals.get(key) ?? []), approval]);
  }
  const report = await verifyTrail(
    {
      storeId,
      heads: await store.listChainHeads(sessionId),
      checkpoints: await store.listCheckpoints(sessionId),
      chainRows: (id, afterSeq) => store.listChainRows(id, { afterSeq, limit: PAGE }),
      messages: (id) => store.listMessageRows(id),
    },
    {
      publicKey,
      digests: digests && storeId !== undefined ? await digests.read(storeId) : undefined,
      sessionId,
      onSession: async (id, rows) => [
        ...crossCheckCalls(id, rows, await store.listCalls({ sessionId: id, limit: ALL })),
        ...crossCheckApprovals(id, rows, approvals.get(id) ?? []),
      ],
    },
  );
  // The whole-store chain check also sees events of a session that has no head at all.
  const chains = await store.verifyChain(sessionId);
  const known = new Set(report.problems.map((p) => p.sessionId));
  let result = report;
  if (!chains.ok && !known.has(chains.sessionId)) {
    result = {
      ...report,
      ok: false,
      problems: [
        ...report.problems,
        { kind: "chain", sessionId: chains.sessionId, seq: chains.seq, message: chains.problem },
      ],
    };
  }
  if (storeId === undefined) {
    return {
      ...result,
      notProven: [
        ...result.notProven,
        "the store predates signed checkpoints (schema < 4): open it once with this docket to upgrade it",
      ],
    };
  }
  return result;
}
