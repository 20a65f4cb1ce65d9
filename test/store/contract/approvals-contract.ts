import { describe, expect, it } from "vitest";
import { isDocketError } from "../../../src/errors/docket-error.js";
import { canonicalJson, hashCanonical } from "../../../src/shared/canonical-json.js";
import type { OpenFreshStore } from "../store-contract.js";

const args = { order_id: "SU-88421", amount: 420 };
const request = {
  sessionId: "s",
  callId: "c1",
  tool: "refund_order",
  canonicalArgs: canonicalJson(args),
  argsHash: hashCanonical(args),
  rule: "big-refunds",
  reason: "over 100",
  requestedBy: "agent",
  approvers: ["role:finance"],
};

/** Durable approvals: created pending, decided once (compare-and-set), expired on time. */
export function approvalsContract(fresh: OpenFreshStore): void {
  describe("approvals", () => {
    it("creates, reads and lists pending approvals", async () => {
      const store = await fresh();
      const approval = await store.createApproval({
        ...request,
        id: "apr_1",
        expiresAt: 5_000,
        createdAt: 1_000,
      });
      expect(approval).toMatchObject({
        id: "apr_1",
        status: "pending",
        scope: "once",
        locallyAsserted: false,
        approvers: ["role:finance"],
        expiresAt: 5_000,
      });
      expect(await store.getApproval("apr_1")).toEqual(approval);
      const other = await store.createApproval({ ...request, sessionId: "t", createdAt: 2_000 });
      expect((await store.listApprovals({ status: "pending" })).map((a) => a.id)).toEqual([
        "apr_1",
        other.id,
      ]);
      expect((await store.listApprovals({ sessionId: "t" })).map((a) => a.id)).toEqual([other.id]);
      await expect(store.createApproval({ ...request, id: "apr_1" })).rejects.toSatisfy((e) =>
        isDocketError(e, "duplicate_approval"),
      );
    });

    it("lets the first of two concurrent decisions win; the second conflicts", async () => {
      const store = await fresh();
      const { id } = await store.createApproval(request);
      const [a, b] = await Promise.all([
        store.decideApproval(id, {
          decision: "approved",
          by: "alice",
          scope: "session",
          locallyAsserted: true,
        }),
        store.decideApproval(id, { decision: "denied", by: "bob", reason: "no" }),
      ]);
      const outcomes = [a, b].map((r) => r?.status).sort();
      expect(outcomes).toEqual(["conflict", "decided"]);
      const winner = [a, b].find((r) => r?.status === "decided");
      const stored = await store.getApproval(id);
      expect(winner?.status === "decided" && winner.approval).toEqual(stored);
      expect(stored?.decidedBy).toMatch(/^(alice|bob)$/);
      if (stored?.decidedBy === "alice") {
        expect(stored).toMatchObject({
          status: "approved",
          scope: "session",
          locallyAsserted: true,
        });
      } else {
        expect(stored).toMatchObject({ status: "denied", decisionReason: "no" });
      }
      expect(await store.decideApproval("apr_none", { decision: "approved", by: "alice" })).toEqual(
        {
          status: "not_found",
        },
      );
      await expect(
        store.decideApproval(id, { decision: "maybe" as never, by: "alice" }),
      ).rejects.toSatisfy((e) => isDocketError(e, "invalid_decision"));
    });

    it("expires pending approvals whose time has passed, and refuses a late decision", async () => {
      const store = await fresh();
      const soon = await store.createApproval({ ...request, createdAt: 1_000, expiresAt: 2_000 });
      const later = await store.createApproval({ ...request, createdAt: 1_000, expiresAt: 9_000 });
      const never = await store.createApproval({ ...request, createdAt: 1_000 });
      const expired = await store.expireApprovals(2_000);
      expect(expired.map((a) => [a.id, a.status, a.decidedAt])).toEqual([
        [soon.id, "expired", 2_000],
      ]);
      expect(
        await store.decideApproval(later.id, { decision: "approved", by: "alice", at: 9_500 }),
      ).toMatchObject({
        status: "conflict",
        approval: { status: "expired" },
      });
      expect(
        await store.decideApproval(never.id, { decision: "approved", by: "alice", at: 9_500 }),
      ).toMatchObject({
        status: "decided",
        approval: { status: "approved", decidedAt: 9_500 },
      });
      expect(await store.expireApprovals(100_000)).toEqual([]);
    });
  });
}
