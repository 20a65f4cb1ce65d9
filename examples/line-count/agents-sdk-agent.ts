/**
 * The support agent of issue 40 written with the OpenAI Agents SDK, as its own docs show:
 * three tools, a refund ceiling as a tool input guardrail, refunds approved by a person.
 * Compared with examples/line-count/docket-agent.ts by test/line-count.test.ts.
 * Run it: `OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=... npx tsx examples/line-count/agents-sdk-agent.ts`.
 */
import {
  Agent,
  defineToolInputGuardrail,
  run,
  setOpenAIAPI,
  setTracingDisabled,
  ToolGuardrailFunctionOutputFactory,
  tool,
} from "@openai/agents";
import { z } from "zod";

// The OpenAI client reads OPENAI_BASE_URL and OPENAI_API_KEY; a local server speaks chat completions.
setOpenAIAPI("chat_completions");
setTracingDisabled(true);

const orders = new Map([["SU-1", { status: "delivered", total: 129 }]]);

const refundCeiling = defineToolInputGuardrail({
  name: "refund-ceiling",
  run: async ({ toolCall }) =>
    JSON.parse(toolCall.arguments).amount > 150
      ? ToolGuardrailFunctionOutputFactory.rejectContent("refunds over 150 USD need a lead")
      : ToolGuardrailFunctionOutputFactory.allow(),
});

const getOrder = tool({
  name: "get_order",
  description: "Look up an order by its id.",
  parameters: z.object({ order_id: z.string().describe("The order id, like SU-1.") }),
  execute: async ({ order_id }) => orders.get(order_id) ?? { error: `no order ${order_id}` },
});

const issueRefund = tool({
  name: "issue_refund",
  description: "Refund part or all of an order, in USD.",
  parameters: z.object({ order_id: z.string(), amount: z.number().positive() }),
  needsApproval: true,
  inputGuardrails: [refundCeiling],
  execute: async ({ order_id, amount }) => ({ order_id, refunded: amount }),
});

const escalateToHuman = tool({
  name: "escalate_to_human",
  description: "Hand the conversation to a person, with a summary.",
  parameters: z.object({ summary: z.string() }),
  execute: async ({ summary }) => ({ ticket: "T-1", summary }),
});

const agent = new Agent({
  name: "Support desk",
  instructions: "You help customers with their orders. Refunds over 150 USD go to a person.",
  model: "gpt-4o-mini",
  tools: [getOrder, issueRefund, escalateToHuman],
});

let result = await run(agent, process.argv[2] ?? "Refund 20 USD on order SU-1.");
while (result.interruptions.length > 0) {
  // A person decides here (a prompt, a web page); this example approves.
  for (const interruption of result.interruptions) result.state.approve(interruption);
  result = await run(agent, result.state);
}
console.log(result.finalOutput);
