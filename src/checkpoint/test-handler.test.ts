import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isDocketError } from "../errors/docket-error.js";
import { defineTool } from "../tool/define-tool.js";
import { testHandler } from "./test-handler.js";

const refund = defineTool({
  name: "issue_refund",
  description: "Refund an order.",
  input: z.object({ order_id: z.string(), amount: z.number().positive() }),
  writes: true,
  handler: ({ order_id, amount }, ctx) => {
    ctx.log("refunding", { order_id });
    if (order_id === "SU-404") throw new Error("no such order");
    return { refund_id: `rf_${order_id}`, amount, key: ctx.idempotencyKey };
  },
});

describe("testHandler", () => {
  it("runs the handler on validated arguments with a checkpoint-like context", async () => {
    const outcome = await testHandler(
      refund,
      { order_id: "SU-1", amount: 20 },
      { sessionId: "s1" },
    );
    expect(outcome).toMatchObject({
      status: "returned",
      output: { refund_id: "rf_SU-1", amount: 20 },
      logs: [{ message: "refunding", data: { order_id: "SU-1" } }],
    });
  });

  it("reports a throw as a value", async () => {
    const outcome = await testHandler(refund, { order_id: "SU-404", amount: 1 });
    expect(outcome.status).toBe("threw");
    expect(outcome.status === "threw" && (outcome.error as Error).message).toBe("no such order");
  });

  it("throws for arguments the schema refuses, naming the problem", async () => {
    const error = await testHandler(refund, { order_id: "SU-1", amount: -1 }).catch((e) => e);
    expect(isDocketError(error, "invalid_tool")).toBe(true);
    expect((error as Error).message).toMatch(/amount/);
  });
});
