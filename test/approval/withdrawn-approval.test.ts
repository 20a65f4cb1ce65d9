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

// A run cancelled while its call waits for approval withdraws the request (a decision after it
// clears nothing), recorded once, with the decision in the same commit; a person who decided in
// the instant before the withdrawal keeps their decision, and the call still does not run.
const directory = createApproverDirectory({ bob: { roles: ["lead"] } }, {});
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-withdrawn-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function waitingCall(store: Store, approverStore: Store = store) {
  const session = await store.createSession({ principal: "agent", configHash: "x" });
  const { checkpoint, ran } = askingDeploy({ store, directory, approverStore });
  const cancel = new AbortController();
  const dispatched = checkpoint.dispatch(
    { id: "c1", name: "deploy", arguments: "{}" },
    { sessionId: session.id, signal: cancel.signal },
  );
  const id = approvalIdFor(session.id, "c1");
  while ((await store.getApproval(id)) === undefined) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return { session, ran, cancel, dispatched, id };
}

async function problems(store: Store, sessionId: string) {
  await store.flush();
  const rows = await store.listChainRows(sessionId);
  return crossCheckApprovals(sessionId, rows, await store.listApprovals({ sessionId }));
}

describe("an approval request withdrawn when its run is cancelled", () => {
  it("is denied by docket once, in the table and the chain, and the call does not run", async () => {
    const store = await openStore(`sqlite:${join(dir, "plain.db")}`);
    try {
      const { session, ran, cancel, dispatched, id } = await waitingCall(store);
      cancel.abort();
      expect((await dispatched).status).not.toBe("ok");
      expect(ran).toEqual([]);
      expect(await store.getApproval(id)).toMatchObject({ status: "denied", decidedBy: "docket" });
      const decisions = (await store.listEvents({ sessionId: session.id }))
        .map((e) => e.event)
        .filter((e) => e.type === "approved" || e.type === "approval_denied");
      expect(decisions).toMatchObject([{ type: "approval_denied", by: "docket" }]);
      expect(await problems(store, session.id)).toEqual([]);
      // A decision after the withdrawal clears nothing.
      const late = await decideApproval(store, directory, {
        approvalId: id,
        decision: "approve",
        claim: { name: "bob" },
        terminal: true,
      });
      expect(late.status).toBe("conflict");
    } finally {
      await store.close();
    }
  });

  it("keeps a decision made in the instant before it: one decision in the chain, the call not run", async () => {
    const store = await openStore(`sqlite:${join(dir, "race.db")}`);
    const bobs = await openStore(`sqlite:${join(dir, "race.db")}`);
    try {
      // The approver's store lets bob decide just before docket's withdrawal reaches the row.
      const racing = new Proxy(store, {
        get(target, name, receiver) {
          if (name !== "decideApproval") return Reflect.get(target, name, receiver);
          return async (...args: Parameters<Store["decideApproval"]>) => {
            await decideApproval(bobs, directory, {
              approvalId: args[0],
              decision: "approve",
              claim: { name: "bob" },
              terminal: true,
            });
            return target.decideApproval(...args);
          };
        },
      });
      const { session, ran, cancel, dispatched, id } = await waitingCall(store, racing);
      cancel.abort();
      expect((await dispatched).status).not.toBe("ok");
      expect(ran).toEqual([]);
      expect(await store.getApproval(id)).toMatchObject({ status: "approved", decidedBy: "bob" });
      const decisions = (await store.listEvents({ sessionId: session.id }))
        .map((e) => e.event)
        .filter((e) => e.type === "approved" || e.type === "approval_denied");
      expect(decisions).toMatchObject([{ type: "approved", by: "bob" }]);
      expect(await problems(store, session.id)).toEqual([]);
    } finally {
      await bobs.close();
      await store.close();
    }
  });
});
