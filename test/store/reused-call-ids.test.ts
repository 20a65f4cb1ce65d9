import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { renderResult } from "../../src/checkpoint/render-result.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { dropTestSchemas, freshPostgresUrl, postgresUrl } from "../support/postgres.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function sqliteUrl(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "docket-reused-"));
  dirs.push(dir);
  return `sqlite:${join(dir, "docket.db")}`;
}

function desk(
  store: Store,
  policy: Parameters<typeof createCheckpoint>[0]["policy"] = () => ({ decision: "allow" }),
  approvals?: Parameters<typeof createCheckpoint>[0]["approvals"],
) {
  const ran: string[] = [];
  const refund = defineTool({
    name: "refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount: z.number() }),
    writes: true,
    handler: ({ order_id, amount }) => {
      ran.push(`refund ${order_id}`);
      return `refunded ${amount} on ${order_id}`;
    },
  });
  const getOrder = defineTool({
    name: "get_order",
    description: "Look an order up.",
    input: z.object({ order_id: z.string() }),
    writes: false,
    handler: ({ order_id }) => {
      ran.push(`get ${order_id}`);
      return `${order_id}: delivered`;
    },
  });
  const checkpoint = createCheckpoint({
    tools: [refund, getOrder],
    store,
    policy,
    ...(approvals ? { approvals } : {}),
  });
  const call = (id: string, name: string, args: unknown, sessionId?: string) =>
    checkpoint.dispatch(
      { id, name, arguments: JSON.stringify(args) },
      sessionId === undefined ? {} : { sessionId },
    );
  return { ran, call, checkpoint };
}

const engines = [
  { name: "sqlite", url: sqliteUrl },
  ...(postgresUrl ? [{ name: "postgres", url: async () => freshPostgresUrl() }] : []),
];
afterAll(dropTestSchemas);

describe.each(engines)("a reused call id, $name store", ({ url }) => {
  it("never answers a call with another call's outcome: other arguments are refused in words", async () => {
    const store = await openStore(await url());
    const session = await store.createSession({ principal: "agent", configHash: "x" });
    const { ran, call } = desk(store);
    const first = await call("call_0", "refund", { order_id: "SU-1001", amount: 20 }, session.id);
    expect(renderResult(first)).toContain("refunded 20 on SU-1001");
    const other = await call("call_0", "refund", { order_id: "SU-1002", amount: 20 }, session.id);
    expect(other).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
    expect(renderResult(other)).not.toContain("SU-1001");
    expect(renderResult(other)).toMatch(/already used in this session by a different call/);
    const read = await call("call_0", "get_order", { order_id: "SU-1001" }, session.id);
    expect(read).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
    expect(renderResult(read)).not.toContain("refunded");
    expect(ran).toEqual(["refund SU-1001"]);
    // The record of the first call is untouched by the refusals.
    const outcome = await store.callOutcome(session.id, "call_0");
    expect(outcome?.output).toContain("SU-1001");
    await store.close();
  });

  it("answers an id refused or written in an earlier batch from its record when it comes back alone", async () => {
    const store = await openStore(await url());
    const session = await store.createSession({ principal: "agent", configHash: "x" });
    let denying = true;
    const { ran, checkpoint } = desk(store, (request) =>
      denying && (request.args as { order_id?: unknown }).order_id === "SU-2"
        ? { decision: "deny", reason: "not this one" }
        : { decision: "allow" },
    );
    const call = (id: string, name: string, args: unknown) => ({
      id,
      name,
      arguments: JSON.stringify(args),
    });
    // One batch reads every id ahead: b is denied, c has bad arguments, w is a write. None of
    // them is claimed through what was read ahead.
    await checkpoint.dispatchBatch(
      [
        call("a", "get_order", { order_id: "SU-1" }),
        call("b", "get_order", { order_id: "SU-2" }),
        call("c", "get_order", { order_id: 3 }),
        call("w", "refund", { order_id: "SU-4", amount: 1 }),
      ],
      { sessionId: session.id },
    );
    expect(ran).toEqual(["get SU-1", "refund SU-4"]);
    denying = false;
    // Each comes back alone (no read ahead of its own): answered from its record, not run.
    const b = await checkpoint.dispatchBatch([call("b", "get_order", { order_id: "SU-2" })], {
      sessionId: session.id,
    });
    expect(b[0]).toMatchObject({ status: "refused" });
    const c = await checkpoint.dispatchBatch([call("c", "get_order", { order_id: "SU-3" })], {
      sessionId: session.id,
    });
    expect(c[0]?.status).not.toBe("ok");
    const w = await checkpoint.dispatchBatch([call("w", "get_order", { order_id: "SU-4" })], {
      sessionId: session.id,
    });
    expect(w[0]).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
    expect(ran).toEqual(["get SU-1", "refund SU-4"]);
    await store.close();
  });

  it("still answers the same call from the record, also after the store is reopened (resume)", async () => {
    const where = await url();
    const store = await openStore(where);
    const session = await store.createSession({ principal: "agent", configHash: "x" });
    const { ran, call } = desk(store);
    await call("c7", "refund", { order_id: "SU-1", amount: 5 }, session.id);
    // Same tool, same arguments in another key order: the same call.
    const again = await call("c7", "refund", { amount: 5, order_id: "SU-1" }, session.id);
    expect(again).toMatchObject({ status: "ok" });
    expect(renderResult(again)).toMatch(/already ran; its recorded result is returned/);
    await store.close();

    const reopened = await openStore(where);
    const later = desk(reopened);
    const resumed = await later.call("c7", "refund", { order_id: "SU-1", amount: 5 }, session.id);
    expect(renderResult(resumed)).toContain("refunded 5 on SU-1");
    expect(ran).toEqual(["refund SU-1"]);
    expect(later.ran).toEqual([]);
    await reopened.close();
  });

  // The id of a call waiting for its approval is claimable again (the approved call comes back
  // under it): another call under that id must not be decided, asked or run in its place.
  for (const entry of ["dispatch", "preflight"] as const) {
    it(`refuses another call under the id of one awaiting approval, unasked (${entry})`, async () => {
      const store = await openStore(await url());
      const session = await store.createSession({ principal: "agent", configHash: "x" });
      const decided: string[] = [];
      const asked: string[] = [];
      const { ran, checkpoint } = desk(
        store,
        (request) => {
          decided.push(`${request.tool.name} ${JSON.stringify(request.args)}`);
          return { decision: request.tool.name === "refund" ? "ask" : "allow" };
        },
        (request) => {
          asked.push(request.toolName);
          return { decision: "pending", approvalId: `apr_${asked.length}` };
        },
      );
      const send = (name: string, args: unknown) => {
        const call = { id: "dup2", name, arguments: JSON.stringify(args) };
        const ctx = { sessionId: session.id };
        return entry === "dispatch"
          ? checkpoint.dispatch(call, ctx)
          : checkpoint.preflight(call, ctx);
      };
      const refund = { order_id: "SU-1", amount: 5 };
      expect(await send("refund", refund)).toMatchObject({ status: "awaiting_approval" });

      const read = await send("get_order", { order_id: "SU-1" });
      expect(read).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
      expect(read.message).toMatch(
        /"dup2" was already used in this session by a different call \(to refund\).*neither decided nor run.*new call needs an id of its own/,
      );
      const other = await send("refund", { ...refund, amount: 500 });
      expect(other).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
      expect(other.message).toMatch(/\(to refund, with other arguments\)/);
      const unreadable = await send("refund", { order_id: 7 });
      expect(unreadable).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
      expect(decided).toEqual([`refund ${JSON.stringify(refund)}`]);
      expect(asked).toEqual(["refund"]);
      expect(ran).toEqual([]);

      // The call on record, sent again, is what it was: asked again, not refused.
      expect(await send("refund", refund)).toMatchObject({ status: "awaiting_approval" });
      const [row] = await store.listCalls({ sessionId: session.id });
      expect(row).toMatchObject({ callId: "dup2", tool: "refund", decision: "ask" });
      expect(row?.outcome?.kind).toBe("awaiting_approval");
      const report = await verifyStoreTrail(store, { sessionId: session.id });
      expect(report.problems).toEqual([]);
      await store.close();
    });
  }

  it("never lets another call claim the id of one awaiting approval (the store's claim)", async () => {
    const store = await openStore(await url());
    const session = await store.createSession({ principal: "agent", configHash: "x" });
    const { checkpoint } = desk(
      store,
      () => ({ decision: "ask" }),
      () => ({ decision: "pending", approvalId: "apr_1" }),
    );
    const args = { order_id: "SU-1", amount: 5 };
    await checkpoint.dispatch(
      { id: "w1", name: "refund", arguments: JSON.stringify(args) },
      { sessionId: session.id },
    );
    const [row] = await store.listCalls({ sessionId: session.id });
    expect(row?.argsHash).toBeDefined();
    // Claims straight to the store, as a runner that skipped the checkpoint's own look would.
    expect(
      await store.claimCall(session.id, "w1", { tool: "get_order", argsHash: row?.argsHash }),
    ).toMatchObject({ status: "seen", tool: "refund" });
    expect(
      await store.claimCall(session.id, "w1", { tool: "refund", argsHash: "0".repeat(64) }),
    ).toMatchObject({ status: "seen", tool: "refund" });
    expect(
      await store.claimCall(session.id, "w1", {
        tool: "get_order",
        argsHash: row?.argsHash,
        defer: true,
      }),
    ).toMatchObject({ status: "seen", tool: "refund" });
    // The approved call itself still claims it.
    expect(
      await store.claimCall(session.id, "w1", { tool: "refund", argsHash: row?.argsHash }),
    ).toEqual({ status: "claimed" });
    await store.close();
  });

  it("does not carry one conversation's result into another sharing the default session", async () => {
    const store = await openStore(await url());
    // A hand-written loop that passes no sessionId: every conversation lands in one session.
    const { ran, call } = desk(store);
    await call("call_0", "refund", { order_id: "SU-1001", amount: 20 });
    const second = await call("call_0", "refund", { order_id: "SU-1002", amount: 20 });
    expect(second).toMatchObject({ status: "refused", reason: "duplicate_call_id" });
    expect(renderResult(second)).not.toContain("SU-1001");
    expect(ran).toEqual(["refund SU-1001"]);
    await store.close();
  });
});

describe("an id refused before its decision (an outage), asked again", () => {
  it("answers the same tool's call with that refusal, never as another call's id", async () => {
    const store = await openStore(await sqliteUrl());
    try {
      const { id: sessionId } = await store.createSession({ principal: "agent", configHash: "" });
      const base = { sessionId, callId: "x", tool: "refund", at: Date.now() };
      // What a store that failed at the call's first step left: requested, then refused.
      await store.emit({
        ...base,
        type: "requested",
        principal: "agent",
        rawArguments: '{"order_id":"A-1","amount":5}',
        rawBytes: 30,
      });
      await store.emit({
        ...base,
        type: "refused",
        reason: "audit_failed",
        message: "The call could not be recorded, so it was not run.",
        durationMs: 1,
      });
      const { call, ran } = desk(store);
      const again = await call("x", "refund", { order_id: "A-1", amount: 5 }, sessionId);
      expect(again).toMatchObject({ status: "refused", reason: "audit_failed" });
      expect(ran).toEqual([]);
      expect((await verifyStoreTrail(store, { sessionId })).problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
