import { describe, expect, it } from "vitest";
import type { AuditAttestation } from "../store/audit-attestation.js";
import { GENESIS_HASH } from "../store/audit-chain.js";
import { compareDigestCopies } from "./compare-digest-copies.js";
import type { TrailProblem } from "./trail-report.js";

/** Attestations 1..count of one session; only the fields the comparison reads matter. */
function attestations(count: number): AuditAttestation[] {
  return Array.from({ length: count }, (_, i) => ({
    storeId: "s",
    sessionId: "ses_long",
    n: i + 1,
    seq: (i + 1) * 4,
    headHash: "a".repeat(64),
    messagesSeq: 0,
    messagesHash: GENESIS_HASH,
    at: i,
    prev: GENESIS_HASH,
    keyId: "k",
    body: "",
    signature: "",
    hash: `h${i + 1}`,
  }));
}

describe("compareDigestCopies", () => {
  it("compares a session of 200,000 attestations (more than a call's arguments hold)", () => {
    const stored = attestations(200_000);
    const problems: TrailProblem[] = [];
    compareDigestCopies("ses_long", stored, stored, new Set(), (p) => problems.push(p));
    expect(problems).toEqual([]);
    // The last one signed and not yet copied, by a process still running: undelivered.
    const delivered = stored.slice(0, -1);
    const owed = new Set([stored.at(-1)?.hash ?? ""]);
    compareDigestCopies("ses_long", stored, delivered, owed, (p) => problems.push(p));
    expect(problems.map((p) => [p.kind, p.seq])).toEqual([["undelivered", 800_000]]);
  });
});
