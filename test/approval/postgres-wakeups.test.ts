import { afterAll, describe, expect, it } from "vitest";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import type { Approval } from "../../src/store/approval-record.js";
import { openStore } from "../../src/store/open-store.js";
import { DESK_POLICY, deskDirectory, deskTools } from "../loop/support/desk-tools.js";
import { call, scriptOf, turn } from "../loop/support/model-script.js";
import { tempStore } from "../loop/support/temp-store.js";
import { dropTestSchemas, freshPostgresUrl, skipPostgres } from "../support/postgres.js";

afterAll(dropTestSchemas);

const script = () =>
  scriptOf([
    turn("Refunding.", call("r1", "issue_refund", { order_id: "SU-1", amount: 20 })),
    turn("Refunded."),
  ]);

describe.skipIf(skipPostgres)("a decided approval wakes the waiting run (PostgreSQL)", () => {
  it("well before the poll interval, decided through another connection", async () => {
    const url = freshPostgresUrl();
    const store = await openStore(url);
    const elsewhere = await openStore(url);
    try {
      const desk = deskTools();
      let pending: (approval: Approval) => void = () => undefined;
      const asked = new Promise<Approval>((resolve) => {
        pending = resolve;
      });
      const harness = createHarness({
        model: createScriptedModel(script()),
        tools: desk.tools,
        policy: DESK_POLICY,
        store,
        // A poll this slow would fail the test: only the notification can make it in time.
        approvals: createDurableApprover({
          store,
          directory: deskDirectory(),
          mode: "wait",
          pollMs: 10_000,
          onPending: (approval) => pending(approval),
        }),
      });
      const running = harness.run("Refund SU-1.");
      const approval = await asked;
      // Let the run reach its wait: the watch is taken before the read, so a decision at any
      // moment is caught, but this test is about the wake-up, not the first read.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const decidedAt = Date.now();
      await decideApproval(elsewhere, deskDirectory(), {
        approvalId: approval.id,
        decision: "approve",
        claim: { name: "alice" },
      });
      const result = await running;
      const waited = Date.now() - decidedAt;
      expect(result.status).toBe("completed");
      expect(desk.runs).toEqual(["issue_refund:r1"]);
      expect(waited).toBeLessThan(2_000);
    } finally {
      await elsewhere.close();
      await store.close();
    }
  });

  it("wakes a watch on a decision, and reports that it wakes", async () => {
    const url = freshPostgresUrl();
    const store = await openStore(url);
    const elsewhere = await openStore(url);
    try {
      await store.createApproval({
        id: "apr_w",
        callId: "c",
        tool: "t",
        canonicalArgs: "{}",
        argsHash: "h",
        requestedBy: "agent",
      });
      const watch = await store.watchApproval("apr_w");
      expect(watch.wakes).toBe(true);
      await watch.next(10); // the first wake-up after connecting says "read again"
      const waiting = watch.next(10_000);
      const started = Date.now();
      await elsewhere.decideApproval("apr_w", { decision: "approved", by: "alice" });
      await waiting;
      expect(Date.now() - started).toBeLessThan(2_000);
      watch.close();
    } finally {
      await elsewhere.close();
      await store.close();
    }
  });
});

describe("SQLite keeps polling", () => {
  it("gives a watch that does not wake, only waits its interval", async () => {
    const { store } = await tempStore();
    const watch = await store.watchApproval("apr_x");
    expect(watch.wakes).toBe(false);
    const started = Date.now();
    await watch.next(30);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
    watch.close();
  });
});
