import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Approver } from "../../src/approval/approval.js";
import { createApproverDirectory, hashToken } from "../../src/approval/approver-directory.js";
import { approvalIdFor, decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";

const directory = createApproverDirectory(
  {
    alice: { roles: ["lead"] },
    bob: { roles: ["lead"], token_sha256: hashToken("bob-token") },
    carol: { roles: ["support"] },
    agent: { roles: ["lead"] },
  },
  {},
);

/**
 * The whole approvals matrix against one store engine: approve, deny, expire, approve for the
 * session, wrong approver, self-approval, arguments changed after approval, a restart between
 * request and decision, concurrent decisions.
 */
export function describeApprovalMatrix(engine: string, newStoreUrl: () => string): void {
  describe(`approvals on ${engine}`, () => {
    const setup = async (
      options: { mode?: "wait" | "suspend"; expiresMs?: number; interactive?: Approver } = {},
    ) => {
      const url = newStoreUrl();
      const store = await openStore(url);
      const session = await store.createSession({ principal: "agent", configHash: "test" });
      const ran: unknown[] = [];
      const refund = defineTool({
        name: "issue_refund",
        description: "Refund an order.",
        input: z.object({ order_id: z.string(), amount: z.number() }),
        writes: true,
        handler: (args) => {
          ran.push(args);
          return { refunded: args.amount };
        },
      });
      const approvals = createDurableApprover({
        store,
        directory,
        mode: options.mode ?? "suspend",
        expiresMs: options.expiresMs ?? 60_000,
        defaultApprovers: ["role:lead"],
        pollMs: 20,
        ...(options.interactive ? { interactive: options.interactive } : {}),
      });
      const checkpoint = createCheckpoint({ tools: [refund], store, approvals });
      const dispatch = (id: string, args: unknown, signal?: AbortSignal) =>
        checkpoint.dispatch(
          { id, name: "issue_refund", arguments: JSON.stringify(args) },
          { sessionId: session.id, ...(signal ? { signal } : {}) },
        );
      return { store, session, ran, dispatch, approvals, url };
    };
    const args = { order_id: "SU-1", amount: 200 };

    it("suspends, persists the request bound to the arguments' hash, and runs once approved", async () => {
      const { store, session, ran, dispatch } = await setup();
      const first = await dispatch("c1", args);
      expect(first).toMatchObject({
        status: "awaiting_approval",
        approvalId: approvalIdFor(session.id, "c1"),
      });
      const pending = await store.getApproval(approvalIdFor(session.id, "c1"));
      expect(pending).toMatchObject({
        status: "pending",
        tool: "issue_refund",
        requestedBy: "agent",
        approvers: ["role:lead"],
      });
      expect(pending?.argsHash).toMatch(/^[0-9a-f]{64}$/);
      expect(ran).toEqual([]);
      expect(
        await decideApproval(store, directory, {
          approvalId: pending?.id ?? "",
          decision: "approve",
          claim: { name: "alice" },
        }),
      ).toMatchObject({
        status: "decided",
        approval: { status: "approved", decidedBy: "alice", locallyAsserted: true },
      });
      expect(await dispatch("c1", args)).toMatchObject({ status: "ok" });
      expect(ran).toHaveLength(1);
      // A decision is used once: the call id never runs again.
      expect(await dispatch("c1", args)).toMatchObject({ status: "ok" });
      expect(ran).toHaveLength(1);
      await store.close();
    });

    it("reports a denial with its reason, and records who denied", async () => {
      const { store, session, ran, dispatch } = await setup();
      await dispatch("c1", args);
      await decideApproval(store, directory, {
        approvalId: approvalIdFor(session.id, "c1"),
        decision: "deny",
        reason: "ask the customer first",
        claim: { token: "bob-token" },
      });
      const result = await dispatch("c1", args);
      expect(result).toMatchObject({ status: "refused", reason: "approval_denied" });
      expect(result.message).toContain("bob denied");
      expect(result.message).toContain("ask the customer first");
      expect(ran).toEqual([]);
      const events = await store.listEvents({ sessionId: session.id });
      expect(events.some((e) => e.type === "approval_denied")).toBe(true);
      await store.close();
    });

    it("expires an undecided request", async () => {
      const { store, ran, dispatch } = await setup({ expiresMs: 1 });
      await dispatch("c1", args);
      await new Promise((resolve) => setTimeout(resolve, 10));
      const result = await dispatch("c1", args);
      expect(result).toMatchObject({ status: "refused", reason: "approval_denied" });
      expect(result.message).toMatch(/expired/);
      expect(ran).toEqual([]);
      await store.close();
    });

    it("refuses the wrong approver, self-approval and anonymous or bad tokens, and audits the attempts", async () => {
      const { store, session, dispatch } = await setup();
      await dispatch("c1", args);
      const approvalId = approvalIdFor(session.id, "c1");
      expect(
        await decideApproval(store, directory, {
          approvalId,
          decision: "approve",
          claim: { name: "carol" },
        }),
      ).toMatchObject({ status: "forbidden" });
      expect(
        await decideApproval(store, directory, {
          approvalId,
          decision: "approve",
          claim: { name: "agent" },
        }),
      ).toMatchObject({
        status: "forbidden",
        message: expect.stringContaining("requested this call"),
      });
      expect(
        await decideApproval(store, directory, { approvalId, decision: "approve", claim: {} }),
      ).toMatchObject({ status: "unauthenticated" });
      expect(
        await decideApproval(store, directory, {
          approvalId,
          decision: "approve",
          claim: { name: "bob" },
        }),
      ).toMatchObject({ status: "unauthenticated" });
      expect(
        await decideApproval(store, directory, {
          approvalId,
          decision: "approve",
          claim: { token: "wrong" },
        }),
      ).toMatchObject({ status: "unauthenticated" });
      expect((await store.getApproval(approvalId))?.status).toBe("pending");
      const logs = (await store.listEvents({ sessionId: session.id })).filter(
        (e) => e.type === "log",
      );
      expect(logs.length).toBeGreaterThanOrEqual(5);
      await store.close();
    });

    it("refuses to run when the arguments changed after approval", async () => {
      const { store, session, ran, dispatch } = await setup();
      await dispatch("c1", args);
      await decideApproval(store, directory, {
        approvalId: approvalIdFor(session.id, "c1"),
        decision: "approve",
        claim: { name: "alice" },
      });
      // The id is on record for the approved arguments: other ones under it are another call,
      // refused before they are decided (the approval is never taken for them).
      const result = await dispatch("c1", { ...args, amount: 2000 });
      expect(result).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
      expect(result.message).toContain("with other arguments");
      expect(ran).toEqual([]);
      await store.close();
    });

    it("approve for this session answers later asks of the same tool and rule", async () => {
      const { store, session, ran, dispatch } = await setup();
      await dispatch("c1", args);
      await decideApproval(store, directory, {
        approvalId: approvalIdFor(session.id, "c1"),
        decision: "approve",
        scope: "session",
        claim: { name: "alice" },
      });
      expect(await dispatch("c1", args)).toMatchObject({ status: "ok" });
      expect(await dispatch("c2", { order_id: "SU-2", amount: 300 })).toMatchObject({
        status: "ok",
      });
      expect(ran).toHaveLength(2);
      await store.close();
    });

    it("lets exactly one of two concurrent decisions win; the other gets a conflict", async () => {
      const { store, session, dispatch } = await setup();
      await dispatch("c1", args);
      const approvalId = approvalIdFor(session.id, "c1");
      const outcomes = await Promise.all([
        decideApproval(store, directory, {
          approvalId,
          decision: "approve",
          claim: { name: "alice" },
        }),
        decideApproval(store, directory, {
          approvalId,
          decision: "deny",
          reason: "no",
          claim: { token: "bob-token" },
        }),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(["conflict", "decided"]);
      await store.close();
    });

    it("waits for a decision made elsewhere (mode wait), within a second", async () => {
      const { store, session, ran, dispatch, url } = await setup({ mode: "wait" });
      const started = Date.now();
      const pending = dispatch("c1", args);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Another process's store on the same database.
      const other = await openStore(url);
      await decideApproval(other, directory, {
        approvalId: approvalIdFor(session.id, "c1"),
        decision: "approve",
        claim: { name: "alice" },
      });
      await other.close();
      expect(await pending).toMatchObject({ status: "ok" });
      expect(Date.now() - started).toBeLessThan(1500);
      expect(ran).toHaveLength(1);
      await store.close();
    });

    it("writes each decision once, whichever channel made it", async () => {
      const decisions = async (store: Store, sessionId: string) =>
        (await store.listEvents({ sessionId }))
          .filter((e) => e.type === "approved" || e.type === "approval_denied")
          .map((e) => [e.callId, e.type]);
      // Decided elsewhere while the run was suspended, then resumed.
      const suspended = await setup();
      await suspended.dispatch("c1", args);
      await suspended.dispatch("c2", args);
      for (const [callId, decision] of [
        ["c1", "approve"],
        ["c2", "deny"],
      ] as const) {
        await decideApproval(suspended.store, directory, {
          approvalId: approvalIdFor(suspended.session.id, callId),
          decision,
          reason: "checked",
          claim: { name: "alice" },
        });
      }
      expect(await suspended.dispatch("c1", args)).toMatchObject({ status: "ok" });
      expect(await suspended.dispatch("c2", args)).toMatchObject({ status: "refused" });
      expect(await decisions(suspended.store, suspended.session.id)).toEqual([
        ["c1", "approved"],
        ["c2", "approval_denied"],
      ]);
      await suspended.store.close();
      // Answered at the terminal while the run waits.
      const answers = ["approve", "deny"] as const;
      let asked = 0;
      const live = await setup({
        mode: "wait",
        interactive: () => ({ decision: answers[asked++] ?? "deny", by: "alice", reason: "seen" }),
      });
      expect(await live.dispatch("c1", args)).toMatchObject({ status: "ok" });
      expect(await live.dispatch("c2", args)).toMatchObject({ status: "refused" });
      expect(await decisions(live.store, live.session.id)).toEqual([
        ["c1", "approved"],
        ["c2", "approval_denied"],
      ]);
      await live.store.close();
    });

    it("takes the terminal's answer through the same checks", async () => {
      const { store, ran, dispatch } = await setup({
        mode: "wait",
        interactive: () => ({ decision: "approve", by: "carol" }),
      });
      expect(await dispatch("c1", args)).toMatchObject({
        status: "refused",
        reason: "approval_denied",
      });
      expect(ran).toEqual([]);
      await store.close();
      const second = await setup({
        mode: "wait",
        interactive: () => ({ decision: "approve", by: "alice" }),
      });
      expect(await second.dispatch("c1", args)).toMatchObject({ status: "ok" });
      await second.store.close();
    });
  });
}
