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

    it("pages approvals newest first, with a total and a cursor, past 1,000", async () => {
      const store = await fresh();
      // 1,205 requests, some created in the same millisecond (the id breaks the tie).
      for (let i = 0; i < 1205; i += 1) {
        await store.createApproval({
          ...request,
          callId: `c${i}`,
          id: `apr_${String(i).padStart(5, "0")}`,
          createdAt: 10_000 + Math.floor(i / 3),
        });
      }
      const first = await store.pageApprovals({ limit: 500 });
      expect(first.total).toBe(1205);
      expect(first.approvals[0]?.id).toBe("apr_01204");
      expect(first.next).toBeTypeOf("string");
      const seen = [...first.approvals];
      let next = first.next;
      while (next) {
        const page = await store.pageApprovals({ limit: 500, cursor: next });
        expect(page.total).toBe(1205);
        seen.push(...page.approvals);
        next = page.next;
      }
      expect(seen.length).toBe(1205);
      expect(new Set(seen.map((a) => a.id)).size).toBe(1205);
      expect(seen.at(-1)?.id).toBe("apr_00000");
      const ids = seen.map((a) => a.id);
      expect(ids).toEqual([...ids].sort().reverse());
      // The default page (100) of a filter that matches less than a page has no cursor.
      const decided = await store.decideApproval("apr_00007", { decision: "denied", by: "bob" });
      expect(decided.status).toBe("decided");
      expect(await store.pageApprovals({ status: "denied" })).toMatchObject({
        total: 1,
        approvals: [{ id: "apr_00007" }],
      });
      expect((await store.pageApprovals({ status: "denied" })).next).toBeUndefined();
      for (const cursor of ["nope", "", "!!", Buffer.from("x:").toString("base64url")]) {
        await expect(store.pageApprovals({ cursor })).rejects.toMatchObject({
          code: "invalid_filter",
        });
      }
      await expect(store.pageApprovals({ limit: 1001 })).rejects.toMatchObject({
        code: "invalid_filter",
      });
    }, 60_000);
  });
}
