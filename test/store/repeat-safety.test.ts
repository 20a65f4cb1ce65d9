import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { renderResult } from "../../src/checkpoint/render-result.js";
import { openStore } from "../../src/store/open-store.js";
import { defineTool } from "../../src/tool/define-tool.js";

async function setup(windowMs?: number) {
  const store = await openStore(
    `sqlite:${join(await mkdtemp(join(tmpdir(), "docket-repeat-")), "docket.db")}`,
  );
  const session = await store.createSession({ principal: "agent", configHash: "x" });
  const ran: string[] = [];
  const keys: string[] = [];
  const refund = defineTool({
    name: "refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount: z.number() }),
    writes: true,
    dedupe:
      windowMs === undefined
        ? ({ order_id, amount }) => `${order_id}:${amount}`
        : { key: ({ order_id, amount }) => `${order_id}:${amount}`, windowMs },
    handler: ({ order_id }, ctx) => {
      ran.push(ctx.callId);
      keys.push(ctx.idempotencyKey);
      return { refunded: order_id, payment: `pay_${ran.length}` };
    },
  });
  const test = defineTool({
    name: "npm_test",
    description: "Run the tests.",
    input: { type: "object" },
    writes: true,
    handler: (_a, ctx) => void ran.push(ctx.callId),
  });
  const checkpoint = createCheckpoint({
    tools: [refund, test],
    store,
    policy: () => ({ decision: "allow" }),
  });
  const call = (id: string, name: string, args: unknown) =>
    checkpoint.dispatch({ id, name, arguments: JSON.stringify(args) }, { sessionId: session.id });
  return { store, ran, keys, call };
}

describe("safe to repeat, with a real store", () => {
  it("runs a call id at most once, ever: a re-delivered call gets the recorded outcome", async () => {
    const { store, ran, call } = await setup();
    const first = await call("c1", "refund", { order_id: "SU-1", amount: 10 });
    const again = await call("c1", "refund", { order_id: "SU-1", amount: 10 });
    expect(ran).toEqual(["c1"]);
    expect(again).toMatchObject({
      status: "ok",
      output: first.status === "ok" ? first.output : undefined,
    });
    expect(renderResult(again)).toMatch(/already ran; its recorded result is returned/);
    await store.close();
  });

  it("returns the earlier result of a repeated action instead of acting twice, with a note", async () => {
    const { store, ran, call } = await setup();
    const first = await call("c1", "refund", { order_id: "SU-1", amount: 10 });
    const repeat = await call("c2", "refund", { amount: 10, order_id: "SU-1" });
    expect(ran).toEqual(["c1"]);
    expect(repeat).toMatchObject({
      callId: "c2",
      status: "ok",
      output: first.status === "ok" ? first.output : undefined,
    });
    expect(renderResult(repeat)).toMatch(/^\[duplicate: not run again/);
    // A different amount is a different action.
    await call("c3", "refund", { order_id: "SU-1", amount: 20 });
    expect(ran).toEqual(["c1", "c3"]);
    await store.close();
  });

  it("never suppresses tools without dedupe: running the tests twice is normal work", async () => {
    const { store, ran, call } = await setup();
    await call("t1", "npm_test", {});
    await call("t2", "npm_test", {});
    expect(ran).toEqual(["t1", "t2"]);
    await store.close();
  });

  it("lets a repeat run again once its window has passed", async () => {
    const { store, ran, call } = await setup(20);
    await call("c1", "refund", { order_id: "SU-1", amount: 10 });
    await new Promise((resolve) => setTimeout(resolve, 40));
    await call("c2", "refund", { order_id: "SU-1", amount: 10 });
    expect(ran).toEqual(["c1", "c2"]);
    await store.close();
  });
});
