/**
 * The README's library example, compiled by the typecheck and run by the tests.
 * Run it yourself: `npx tsx examples/quickstart.ts`.
 */
import { fileURLToPath } from "node:url";
import {
  createCheckpoint,
  createMemoryEventSink,
  defineTool,
  renderResult,
  type ToolResult,
} from "docket";
import { z } from "zod";

const orders = new Map([["SU-88421", { status: "shipped", total: 129 }]]);

const getOrder = defineTool({
  name: "get_order",
  description: "Look up an order by its id. Use it before answering about an order.",
  input: z.object({ order_id: z.string().describe("The order id, like SU-88421.") }),
  writes: false,
  handler: ({ order_id }) => orders.get(order_id) ?? { error: `no order ${order_id}` },
});

const issueRefund = defineTool({
  name: "issue_refund",
  description: "Refund part or all of an order. Use it only when the customer is owed money.",
  input: z.object({
    order_id: z.string().describe("The order id."),
    amount: z.number().positive().describe("The refund in USD."),
  }),
  writes: true,
  handler: ({ order_id, amount }, ctx) => ({ refunded: amount, order_id, key: ctx.idempotencyKey }),
});

/** The example's tools, as the model is offered them (the lint test checks them). */
export const orderTools = [getOrder, issueRefund];

/** Dispatch four calls the way a model would send them, and return their results. */
export async function main(): Promise<ToolResult[]> {
  const events = createMemoryEventSink();
  const checkpoint = createCheckpoint({
    tools: orderTools,
    // Refunds over 150 need a human; everything else follows the default (reads allow, writes ask).
    policy: ({ tool, args }) =>
      tool.name === "issue_refund" && Number(args.amount) > 150
        ? { decision: "deny", rule: "refund-ceiling", reason: "refunds over 150 USD need a lead" }
        : { decision: tool.writes ? "ask" : "allow", rule: "default" },
    // A programmatic approver: here, a lead who approves small refunds.
    approvals: ({ args }) =>
      Number(args.amount) <= 50
        ? { decision: "approve", by: "lead@example.com" }
        : { decision: "deny", by: "lead@example.com", reason: "check with the customer first" },
    events,
  });
  return checkpoint.dispatchBatch([
    { id: "call_1", name: "get_order", arguments: '{"order_id":"SU-88421"}' },
    { id: "call_2", name: "issue_refund", arguments: '{"order_id":"SU-88421","amount":20}' },
    { id: "call_3", name: "issue_refund", arguments: '{"order_id":"SU-88421","amount":500}' },
    { id: "call_4", name: "get_order", arguments: '{"order_id":' },
  ]);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const result of await main()) {
    console.log(
      `${result.callId} ${result.name}: ${result.status} ${result.reason ?? ""}\n  ${renderResult(result)}`,
    );
  }
}
