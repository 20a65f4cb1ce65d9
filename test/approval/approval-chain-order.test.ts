import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { approvalIdFor, decideApproval } from "../../src/approval/decide-approval.js";
import { crossCheckApprovals } from "../../src/audit/cross-check-tables.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { cuttingProxy } from "../store/support/cutting-proxy.js";
import {
  dropTestSchemas,
  freshPostgresUrl,
  postgresUrl,
  skipPostgres,
} from "../support/postgres.js";
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
  await dropTestSchemas();
});

/** Bob approves `id` through the function every channel uses. */
const approveAsBob = (store: Store, approvalId: string) =>
  decideApproval(store, directory, {
    approvalId,
    decision: "approve",
    claim: { name: "bob" },
    terminal: true,
  });

async function chainProblems(store: Store, sessionId: string) {
  const rows = await store.listChainRows(sessionId);
  return crossCheckApprovals(sessionId, rows, await store.listApprovals({ sessionId }));
}

/** A pending request for `callId`, its ask already in the chain. */
async function pendingRequest(store: Store, callId: string) {
  const session = await store.createSession({ principal: "agent", configHash: "x" });
  const id = approvalIdFor(session.id, callId);
  await store.emit({
    type: "approval_requested",
    callId,
    tool: "deploy",
    sessionId: session.id,
    at: Date.now(),
    principal: "agent",
    argumentsHash: "b".repeat(64),
    approvers: undefined,
  });
  await store.createApproval({
    id,
    callId,
    tool: "deploy",
    canonicalArgs: "{}",
    argsHash: "b".repeat(64),
    requestedBy: "agent",
    createdAt: Date.now(),
    sessionId: session.id,
  });
  return { sessionId: session.id, id };
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
      // What the checkpoint does: the ask (a buffered event), then the row.
      const { sessionId, id } = await pendingRequest(
        agent,
        `c-${Math.random().toString(36).slice(2)}`,
      );
      // The approver's process decides before the agent's queue is committed by anything else.
      const decided = await approveAsBob(approverSide, id);
      expect(decided.status).toBe("decided");
      // Acknowledged means kept: a third reader sees the decision without either store closing.
      const reader = await openStore(target);
      try {
        const events = await reader.listEvents({ sessionId: sessionId });
        expect(events.map((e) => e.event.type)).toEqual(["approval_requested", "approved"]);
      } finally {
        await reader.close();
      }
      await agent.flush();
      expect(await chainProblems(agent, sessionId)).toEqual([]);
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
      expect(await approveAsBob(approverSide, approvalIdFor(session.id, callId))).toMatchObject({
        status: "decided",
      });
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

/** Bob approves `id` again, recorded: both land, and verify's cross-check is clean. */
async function decidedAgain(store: Store, sessionId: string, id: string) {
  const decided = await approveAsBob(store, id);
  expect(decided.status).toBe("decided");
  const events = await store.listEvents({ sessionId });
  expect(events.map((e) => e.event.type)).toEqual(["approval_requested", "approved"]);
  expect(await chainProblems(store, sessionId)).toEqual([]);
}

describe.each(targets)("a decision and its event in one commit (%s)", (_name, url) => {
  it("when the event cannot be made, the decision is not made either", async () => {
    const store = await openStore(url());
    try {
      const { sessionId, id } = await pendingRequest(store, "c1");
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
      await decidedAgain(store, sessionId, id);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(skipPostgres)("a decision whose connection is lost (PostgreSQL)", () => {
  it("the decision rolls back with the event: the request is still pending, and verify is clean", async () => {
    const proxy = await cuttingProxy(postgresUrl as string);
    const store = await openStore(proxy.through(freshPostgresUrl()));
    try {
      const { sessionId, id } = await pendingRequest(store, "c2");
      // The connection dies as the event's write is sent: the decision's UPDATE ran before it,
      // on the same connection, and must not have committed on its own.
      proxy.cutAt((query) => query.includes("INSERT INTO audit_events"), "before");
      await expect(approveAsBob(store, id)).rejects.toThrow();
      expect(proxy.cuts()).toBe(1);
      expect((await store.getApproval(id))?.status).toBe("pending");
      const events = await store.listEvents({ sessionId });
      expect(events.map((e) => e.event.type)).toEqual(["approval_requested"]);
      expect(await chainProblems(store, sessionId)).toEqual([]);
      await decidedAgain(store, sessionId, id);
    } finally {
      await store.close();
      await proxy.close();
    }
  });
  it("lost after the server committed it: the decision stands, answered as made, and verify is clean", async () => {
    const proxy = await cuttingProxy(postgresUrl as string);
    const store = await openStore(proxy.through(freshPostgresUrl()));
    try {
      const { sessionId, id } = await pendingRequest(store, "c3");
      // The server runs the COMMIT; its reply never arrives: the commit is in doubt.
      proxy.cutAt((query) => query === "COMMIT", "after");
      const decided = await approveAsBob(store, id);
      expect(proxy.cuts()).toBe(1);
      expect(decided.status).toBe("decided");
      expect((await store.getApproval(id))?.status).toBe("approved");
      const events = await store.listEvents({ sessionId });
      expect(events.map((e) => e.event.type)).toEqual(["approval_requested", "approved"]);
      expect(await chainProblems(store, sessionId)).toEqual([]);
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});
