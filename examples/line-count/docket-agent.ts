/**
 * The support agent of issue 40 written with docket, from its README and docs only: three tools,
 * a policy, a durable approver on SQLite, a model from `@ai-sdk/openai-compatible`
 * (`openai-compatible:MODEL`, which docket loads).
 * Compared with examples/line-count/agents-sdk-agent.ts by test/line-count.test.ts.
 * Run it: `OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=... npx tsx examples/line-count/docket-agent.ts`.
 */
import { createHarness, defineTool } from "docket";
import { z } from "zod";

const orders = new Map([["SU-1", { status: "delivered", total: 129 }]]);

const getOrder = defineTool({
  name: "get_order",
  description: "Look up an order by its id.",
  input: z.object({ order_id: z.string().describe("The order id, like SU-1.") }),
  writes: false,
  handler: ({ order_id }) => orders.get(order_id) ?? { error: `no order ${order_id}` },
});

const issueRefund = defineTool({
  name: "issue_refund",
  description: "Refund part or all of an order, in USD.",
  input: z.object({ order_id: z.string(), amount: z.number().positive() }),
  writes: true,
  handler: ({ order_id, amount }) => ({ order_id, refunded: amount }),
});

const escalateToHuman = defineTool({
  name: "escalate_to_human",
  description: "Hand the conversation to a person, with a summary.",
  input: z.object({ summary: z.string() }),
  writes: true,
  handler: ({ summary }) => ({ ticket: "T-1", summary }),
});

const harness = createHarness({
  // @ai-sdk/openai-compatible at OPENAI_BASE_URL with OPENAI_API_KEY, as the OpenAI client reads them.
  model: "openai-compatible:gpt-4o-mini",
  system: "You help customers with their orders. Refunds over 150 USD go to a person.",
  tools: [getOrder, issueRefund, escalateToHuman],
  // Durable: requests live in the store (.docket/docket.db), bound to the arguments' hash.
  approvals: { approvers: { alice: { roles: ["lead"] } } },
  policy: {
    rules: [
      {
        decision: "deny",
        tool: "issue_refund",
        when: "args.amount > 150",
        reason: "refunds over 150 USD need a lead",
      },
      { decision: "allow", tool: "escalate_to_human" },
    ],
  },
});

let result = await harness.run(process.argv[2] ?? "Refund 20 USD on order SU-1.");
while (result.status === "suspended") {
  // A person decides here (`docket approvals`, the console); this example approves as alice.
  for (const { approvalId } of result.approvals) {
    await harness.decideApproval({ approvalId, decision: "approve", claim: { name: "alice" } });
  }
  result = await harness.resume(result.sessionId);
}
console.log(result.text);
await harness.close();
