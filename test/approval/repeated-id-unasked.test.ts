import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ApprovalRequest } from "../../src/approval/approval.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { tempStore } from "../loop/support/temp-store.js";

/** A refund that asks, an approver that answers as told and counts what it was asked. */
async function setup(first: "approve" | "deny") {
  let answer = first;
  const { store } = await tempStore();
  const session = await store.createSession({ principal: "agent", configHash: "" });
  const asked: ApprovalRequest[] = [];
  const runs: number[] = [];
  const refund = defineTool({
    name: "issue_refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount: z.number() }),
    writes: true,
    handler: ({ amount }) => {
      runs.push(amount);
      return { refunded: amount };
    },
  });
  const checkpoint = createCheckpoint({
    tools: [refund],
    store,
    policy: () => ({ decision: "ask", rule: "refunds-ask" }),
    approvals: (request) => {
      asked.push(request);
      return answer === "approve"
        ? { decision: "approve", by: "alice" }
        : { decision: "deny", by: "alice", reason: "not this one" };
    },
  });
  const send = (id: string, amount = 30, principal?: string) =>
    checkpoint.dispatch(
      { id, name: "issue_refund", arguments: JSON.stringify({ order_id: "SU-1", amount }) },
      { sessionId: session.id, ...(principal ? { principal } : {}) },
    );
  const answerWith = (next: "approve" | "deny") => {
    answer = next;
  };
  return { send, asked, runs, answerWith };
}

describe("a call id with an outcome on record, sent again", () => {
  it("refused by the approver: answered with that refusal, nobody is asked again", async () => {
    const { send, asked, runs } = await setup("deny");
    expect(await send("c1")).toMatchObject({ status: "refused", reason: "approval_denied" });
    expect(asked).toHaveLength(1);
    const again = await send("c1");
    expect(again).toMatchObject({ status: "refused", reason: "approval_denied" });
    expect(again.message).toMatch(/^This call \(c1\) was refused earlier and is not run again: /);
    expect(asked).toHaveLength(1);
    expect(runs).toEqual([]);
  });

  it("approved and run: asked again, since the record holds output; approved, its result comes back, not run again", async () => {
    const { send, asked, runs } = await setup("approve");
    expect(await send("c1")).toMatchObject({ status: "ok", output: { refunded: 30 } });
    const again = await send("c1");
    expect(again).toMatchObject({ status: "ok", output: { refunded: 30 } });
    expect(again.message).toMatch(/already ran/);
    expect(asked).toHaveLength(2);
    expect(runs).toEqual([30]);
  });

  it("another principal reusing an id whose record holds output is asked, and a denial hands nothing over", async () => {
    const { send, asked, runs, answerWith } = await setup("approve");
    expect(await send("c1", 30, "support-bot")).toMatchObject({ status: "ok" });
    answerWith("deny");
    const reused = await send("c1", 30, "guest");
    expect(reused).toMatchObject({ status: "refused", reason: "approval_denied" });
    expect(JSON.stringify(reused)).not.toMatch(/refunded/);
    expect(asked.map((request) => request.principal)).toEqual(["support-bot", "guest"]);
    expect(runs).toEqual([30]);
  });

  it("the same id for another call is refused and never run; a new id is still asked", async () => {
    const { send, asked, runs } = await setup("approve");
    await send("c1", 30);
    // The id is on record for other arguments: refused before it is decided, nobody is asked.
    expect(await send("c1", 5000)).toMatchObject({
      status: "refused",
      reason: "duplicate_call_id",
    });
    expect(await send("c2", 40)).toMatchObject({ status: "ok" });
    expect(asked.map((request) => request.callId)).toEqual(["c1", "c2"]);
    expect(runs).toEqual([30, 40]);
  });
});
