import { describe, expect, it } from "vitest";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import { isDocketError } from "../../src/errors/docket-error.js";
import { createHarness } from "../../src/loop/create-harness.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";
import { rawSql } from "../store/support/raw-sql.js";
import { DESK_POLICY, deskDirectory, deskTools } from "./support/desk-tools.js";
import { holdFirstRequest } from "./support/held-model.js";
import { call, scriptOf, turn } from "./support/model-script.js";
import { tempStore } from "./support/temp-store.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function approvedSession() {
  const { store } = await tempStore();
  const directory = deskDirectory();
  const desk = deskTools();
  const harness = createHarness({
    model: createScriptedModel(
      scriptOf([
        turn("Refunding.", call("r1", "issue_refund", { order_id: "SU-1", amount: 20 })),
        turn("Refunded."),
      ]),
    ),
    tools: desk.tools,
    policy: DESK_POLICY,
    store,
    approvals: createDurableApprover({ store, directory, mode: "suspend" }),
  });
  const suspended = await harness.run("Refund SU-1.");
  await decideApproval(store, directory, {
    approvalId: suspended.approvals?.[0]?.approvalId ?? "",
    decision: "approve",
    claim: { name: "alice" },
  });
  return { store, harness, desk, sessionId: suspended.sessionId };
}

describe("a run's session lease", () => {
  it("refuses a session another runner holds, naming it, and touches nothing", async () => {
    const { store, harness, desk, sessionId } = await approvedSession();
    await store.acquireLease(sessionId, { owner: "other-host/42/x#run", ttlMs: 60_000 });
    const before = await store.loadTranscript(sessionId);
    const error = await harness.resume(sessionId).catch((e: unknown) => e);
    expect(isDocketError(error) && error.code).toBe("session_busy");
    expect(String((error as Error).message)).toMatch(
      new RegExp(`Session ${sessionId} is being run by other-host/42/x#run since \\d{4}-`),
    );
    expect(desk.runs).toEqual([]);
    expect(await store.loadTranscript(sessionId)).toEqual(before);
    expect((await store.getSession(sessionId))?.status).toBe("suspended");
  });

  it("waits for a holder that lets go within lease.wait", async () => {
    const { store, harness, desk, sessionId } = await approvedSession();
    await store.acquireLease(sessionId, { owner: "other", ttlMs: 60_000 });
    setTimeout(() => void store.releaseLease(sessionId, "other"), 150);
    const result = await harness.resume(sessionId, { lease: { wait: 5_000 } });
    expect(result.status).toBe("completed");
    expect(desk.runs).toEqual(["issue_refund:r1"]);
  });

  it("takes over the lease of a holder that died, and starts from the store", async () => {
    const { store, harness, desk, sessionId } = await approvedSession();
    await store.acquireLease(sessionId, { owner: "dead-host/1/x#run", ttlMs: 30 });
    await sleep(80);
    const result = await harness.resume(sessionId);
    expect(result).toMatchObject({ status: "completed", text: "Refunded." });
    expect(desk.runs).toEqual(["issue_refund:r1"]);
    expect(await store.getLease(sessionId)).toBeUndefined();
  });

  it("stops a run whose lease another runner took over, and lets it go", async () => {
    const { store } = await tempStore();
    const held = holdFirstRequest(createScriptedModel(scriptOf([turn("Hello.")])));
    const harness = createHarness({ model: held.model, store });
    const running = harness.run("Hi.", { lease: { ttlMs: 60 } });
    await held.inFlight;
    // As if it had lapsed and been taken: the next renewal finds it gone.
    await rawSql(store, ["UPDATE session_leases SET owner = 'thief'"]);
    const result = await running;
    expect(result.status).toBe("cancelled");
    expect(held.signal()?.aborted).toBe(true);
    expect(isDocketError(held.signal()?.reason) && held.signal()?.reason.code).toBe("lease_lost");
    // The thief's lease is left alone.
    expect((await store.getLease(result.sessionId))?.owner).toBe("thief");
  });

  it("stops a run whose renewal never answers once its lease has lapsed", async () => {
    const { store } = await tempStore();
    // A store that stopped answering renewals (a database gone silent): each hangs.
    const silent = new Proxy(store, {
      get: (target, key, receiver) =>
        key === "renewLease"
          ? () => new Promise<boolean>(() => undefined)
          : Reflect.get(target, key, receiver),
    });
    const held = holdFirstRequest(createScriptedModel(scriptOf([turn("Hello.")])));
    const harness = createHarness({ model: held.model, store: silent });
    const running = harness.run("Hi.", { lease: { ttlMs: 60 } });
    await held.inFlight;
    const result = await running;
    expect(result.status).toBe("cancelled");
    const reason = held.signal()?.reason;
    expect(isDocketError(reason) && reason.code).toBe("lease_lost");
    expect(String((reason as Error).message)).toContain("could not be renewed before it lapsed");
  });

  it("renews its lease while it runs and releases it at the end", async () => {
    const { store, harness, sessionId } = await approvedSession();
    const seen: (string | undefined)[] = [];
    const result = await harness.resume(sessionId, {
      lease: { ttlMs: 30 },
      onEvent: (event) => {
        if (event.type === "tool_result") {
          void store.getLease(sessionId).then((lease) => seen.push(lease?.owner));
        }
      },
    });
    expect(result.status).toBe("completed");
    await sleep(10);
    expect(seen[0]).toMatch(new RegExp(`^${store.owner.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}#`));
    expect(await store.getLease(sessionId)).toBeUndefined();
  });
});
