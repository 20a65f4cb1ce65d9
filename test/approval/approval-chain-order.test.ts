import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { approvalIdFor, decideApproval } from "../../src/approval/decide-approval.js";
import { crossCheckApprovals } from "../../src/audit/cross-check-tables.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { askingDeploy } from "./support/asking-deploy.js";

// A request's row is what another process acts on: the chain must already hold the ask it
// answers, and a decision acknowledged to its approver must already be in the chain. Two stores
// on one file are two processes (the agent's, an approver's CLI or HTTP API), each with its own
// event queue buffering what is not an intent.
const directory = createApproverDirectory({ bob: { roles: ["lead"] } }, {});
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-approval-order-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function chainProblems(store: Store, sessionId: string) {
  const rows = await store.listChainRows(sessionId);
  return crossCheckApprovals(sessionId, rows, await store.listApprovals({ sessionId }));
}

const targets: [string, () => string][] = [
  ["SQLite", () => `sqlite:${join(dir, `order-${Math.random().toString(36).slice(2)}.db`)}`],
];
const postgres = process.env.DOCKET_TEST_POSTGRES_URL;
if (postgres) targets.push(["PostgreSQL", () => postgres]);

describe.each(targets)("the chain's order around an approval request (%s)", (_name, url) => {
  it("a request decided elsewhere the moment its row appears: the chain asks before it is answered", async () => {
    const target = url();
    const agent = await openStore(target);
    const approverSide = await openStore(target);
    try {
      const session = await agent.createSession({ principal: "agent", configHash: "x" });
      const callId = `c-${Math.random().toString(36).slice(2)}`;
      // What the checkpoint does: the ask (a buffered event), then the row.
      await agent.emit({
        type: "approval_requested",
        callId,
        tool: "deploy",
        sessionId: session.id,
        at: Date.now(),
        principal: "agent",
        argumentsHash: "a".repeat(64),
        approvers: undefined,
      });
      await agent.createApproval({
        id: approvalIdFor(session.id, callId),
        callId,
        tool: "deploy",
        canonicalArgs: "{}",
        argsHash: "a".repeat(64),
        requestedBy: "agent",
        createdAt: Date.now(),
        sessionId: session.id,
      });
      // The approver's process decides before the agent's queue is committed by anything else.
      const decided = await decideApproval(approverSide, directory, {
        approvalId: approvalIdFor(session.id, callId),
        decision: "approve",
        claim: { name: "bob" },
        terminal: true,
      });
      expect(decided.status).toBe("decided");
      // Acknowledged means kept: a third reader sees the decision without either store closing.
      const reader = await openStore(target);
      try {
        const events = await reader.listEvents({ sessionId: session.id });
        expect(events.map((e) => e.event.type)).toEqual(["approval_requested", "approved"]);
      } finally {
        await reader.close();
      }
      await agent.flush();
      expect(await chainProblems(agent, session.id)).toEqual([]);
    } finally {
      await approverSide.close();
      await agent.close();
    }
  });

  it("a checkpoint waiting on a request decided by another process records a trail verify accepts", async () => {
    const target = url();
    const agent = await openStore(target);
    const approverSide = await openStore(target);
    try {
      const session = await agent.createSession({ principal: "agent", configHash: "x" });
      const { checkpoint, ran } = askingDeploy({ store: agent, directory });
      const callId = `c-${Math.random().toString(36).slice(2)}`;
      const dispatched = checkpoint.dispatch(
        { id: callId, name: "deploy", arguments: "{}" },
        { sessionId: session.id },
      );
      // Answer as soon as the row can be seen, as a person watching the queue would.
      for (;;) {
        const pending = await approverSide.listApprovals({ status: "pending" });
        if (pending.length > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(
        await decideApproval(approverSide, directory, {
          approvalId: approvalIdFor(session.id, callId),
          decision: "approve",
          claim: { name: "bob" },
          terminal: true,
        }),
      ).toMatchObject({ status: "decided" });
      expect(await dispatched).toMatchObject({ status: "ok" });
      expect(ran).toEqual(["deploy"]);
      await agent.flush();
      expect(await chainProblems(agent, session.id)).toEqual([]);
    } finally {
      await approverSide.close();
      await agent.close();
    }
  });
});

describe("a decision and its event in one commit (SQLite)", () => {
  it("when the event cannot be written, the decision is not made either", async () => {
    const target = `sqlite:${join(dir, "atomic.db")}`;
    const store = await openStore(target);
    try {
      const session = await store.createSession({ principal: "agent", configHash: "x" });
      const id = approvalIdFor(session.id, "c1");
      await store.emit({
        type: "approval_requested",
        callId: "c1",
        tool: "deploy",
        sessionId: session.id,
        at: Date.now(),
        principal: "agent",
        argumentsHash: "b".repeat(64),
        approvers: undefined,
      });
      await store.createApproval({
        id,
        callId: "c1",
        tool: "deploy",
        canonicalArgs: "{}",
        argsHash: "b".repeat(64),
        requestedBy: "agent",
        createdAt: Date.now(),
        sessionId: session.id,
      });
      // A fault between the row and its event (here: the event cannot be made) undoes both.
      await expect(
        store.decideApproval(
          id,
          { decision: "approved", by: "bob" },
          {
            record: () => {
              throw new Error("the event could not be written");
            },
          },
        ),
      ).rejects.toThrow("the event could not be written");
      expect((await store.getApproval(id))?.status).toBe("pending");
      // The same decision again, recorded: both land, and verify's cross-check is clean.
      const decided = await decideApproval(store, directory, {
        approvalId: id,
        decision: "approve",
        claim: { name: "bob" },
        terminal: true,
      });
      expect(decided.status).toBe("decided");
      const events = await store.listEvents({ sessionId: session.id });
      expect(events.map((e) => e.event.type)).toEqual(["approval_requested", "approved"]);
      expect(await chainProblems(store, session.id)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
