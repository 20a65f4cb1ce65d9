import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import type { ToolStats } from "../../src/cli/commands/call-stats.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { tempStore } from "../loop/support/temp-store.js";
import { runDocket } from "../support/run-docket.js";

const getOrder = defineTool({
  name: "get_order",
  description: "Look up an order. Use it before a refund.",
  input: z.object({ order_id: z.string().describe("The order id.") }),
  writes: false,
  handler: async ({ order_id }) => {
    await new Promise((resolve) => setTimeout(resolve, order_id === "slow" ? 120 : 1));
    return "x".repeat(400);
  },
});
const refund = defineTool({
  name: "issue_refund",
  description: "Refund an order. Use it when money is owed.",
  input: z.object({ amount: z.number().describe("USD.") }),
  writes: true,
  handler: ({ amount }) => {
    if (amount > 100) throw new Error("over the ceiling");
    return { refunded: amount };
  },
});

async function storeWithKnownCalls() {
  const temp = await tempStore();
  const session = await temp.store.createSession({ principal: "agent", configHash: "" });
  const checkpoint = createCheckpoint({
    tools: [getOrder, refund],
    store: temp.store,
    policy: {
      rules: [
        { id: "refunds-asked", decision: "ask", tool: "issue_refund" },
        { id: "no-secret", decision: "deny", tool: "get_order", when: 'args.order_id == "secret"' },
      ],
    },
    approvals: async () => {
      await new Promise((resolve) => setTimeout(resolve, 60));
      return { decision: "approve", by: "alice" };
    },
  });
  const ctx = { sessionId: session.id };
  const call = (id: string, name: string, args: object) =>
    checkpoint.dispatch({ id, name, arguments: JSON.stringify(args) }, ctx);
  await call("c1", "get_order", { order_id: "a" });
  await call("c2", "get_order", { order_id: "b" });
  await call("c3", "get_order", { order_id: "slow" });
  await call("c4", "get_order", { order_id: "secret" });
  await call("c5", "issue_refund", { amount: 20 });
  await call("c6", "issue_refund", { amount: 500 });
  await call("c7", "get_order", "not json" as unknown as object);
  await temp.store.close();
  return { ...temp, sessionId: session.id };
}

function parse(stdout: string): ToolStats[] {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as ToolStats);
}

describe("docket stats", () => {
  it("reports per tool: calls, decisions, outcomes, handler time, approval wait, sizes", async () => {
    const { url, sessionId } = await storeWithKnownCalls();
    const { code, stdout, stderr } = await runDocket([
      "stats",
      "--store",
      url,
      "--json",
      "--by",
      "all",
    ]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const rows = parse(stdout);
    const get = rows.find((r) => r.tool === "get_order");
    const refunds = rows.find((r) => r.tool === "issue_refund");
    expect(get).toMatchObject({
      period: "all",
      calls: 5,
      allowed: 3,
      asked: 0,
      denied: 1,
      ok: 3,
      refused: 2,
      failed: 0,
      pending: 0,
      resultBytes: 3 * 400,
      resultTokens: 3 * 100,
    });
    expect(get?.handlerMs.max).toBeGreaterThanOrEqual(100);
    expect(get?.handlerMs.p50).toBeLessThan(100);
    expect(refunds).toMatchObject({ calls: 2, asked: 2, ok: 1, failed: 1, refused: 0 });
    expect(refunds?.approvalWaitMs.p50).toBeGreaterThanOrEqual(50);
    // The approval wait is not handler time.
    expect(refunds?.handlerMs.max).toBeLessThan(50);

    const one = await runDocket(["stats", "--store", url, "--json", "--session", "ses_none"]);
    expect(one.stdout).toBe("");
    const mine = await runDocket(["stats", "--store", url, "--json", "--session", sessionId]);
    expect(parse(mine.stdout).map((r) => r.tool)).toEqual(["get_order", "issue_refund"]);
    const later = await runDocket(["stats", "--store", url, "--since", "2999-01-01"]);
    expect(later.stdout).toBe("No calls.\n");
    const table = await runDocket(["stats", "--store", url]);
    expect(table.stdout).toMatch(/get_order\s+5\s+3\/0\/1\s+3\/2\/0/);
  });

  it("never creates a store that is not there", async () => {
    const { dir } = await tempStore();
    const missing = join(dir, "nothing-here.db");
    const { code, stderr } = await runDocket(["stats", "--store", `sqlite:${missing}`]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/docket:/);
    expect(existsSync(missing)).toBe(false);
  });
});
