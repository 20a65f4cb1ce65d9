/**
 * docket's checkpoint inside an AI SDK 7 app that keeps `generateText` and its own loop
 * (docs/ai-sdk.md). Compiled by the typecheck and run by the tests against a local fake provider.
 * Run it yourself: `ANTHROPIC_API_KEY=… npx tsx examples/ai-sdk-app.ts`.
 */
import { fileURLToPath } from "node:url";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import {
  createAiSdkApprovals,
  createCheckpoint,
  defineTool,
  docketTools,
  openStore,
  type Store,
} from "docket";
import { z } from "zod";

const getOrder = defineTool({
  name: "get_order",
  description: "Look up an order by its id. Use it before answering about an order.",
  input: z.object({ order_id: z.string().describe("The order id, like SU-1001.") }),
  writes: false,
  handler: ({ order_id }) => ({ order_id, status: "delivered", total_usd: 420 }),
});

const issueRefund = defineTool({
  name: "issue_refund",
  description: "Refund part or all of an order. Use it only when the customer is owed money.",
  input: z.object({
    order_id: z.string().describe("The order id."),
    amount: z.number().positive().describe("The refund in USD."),
  }),
  writes: true,
  handler: ({ order_id, amount }) => `refunded ${amount} USD on ${order_id}`,
});

/** The example's tools, as the model is offered them (the lint test checks them). */
export const orderTools = [getOrder, issueRefund];

/** What the example did: the model's last words per request, and the audit trail's events. */
export interface AppOutcome {
  readonly denied: string;
  readonly approved: string;
  readonly trail: readonly { readonly callId: string; readonly type: string }[];
}

/** Two conversations: a refund the policy denies, and one a person approves in the AI SDK's flow. */
export async function main(
  model: LanguageModelV4,
  { storeUrl = ":memory:" }: { storeUrl?: string } = {},
): Promise<AppOutcome> {
  const store: Store = await openStore(storeUrl);
  try {
    // The person behind this app's UI answers docket's asks through the AI SDK's approval flow.
    const approvals = createAiSdkApprovals({ by: "ada@support" });
    const checkpoint = createCheckpoint({
      tools: orderTools,
      store,
      policy: ({ tool, args }) =>
        tool.name === "issue_refund" && Number(args.amount) > 150
          ? { decision: "deny", rule: "refund-ceiling", reason: "refunds over 150 USD need a lead" }
          : { decision: tool.writes ? "ask" : "allow", rule: "default" },
      approvals: approvals.approver,
    });
    const session = await store.createSession({ principal: "agent", configHash: "" });
    const tools = docketTools(checkpoint, { sessionId: session.id, approvals });

    // 1. A refund over the ceiling: the checkpoint refuses it, the model reads why.
    const first = await generateText({
      model,
      tools,
      stopWhen: stepCountIs(4),
      prompt: "Refund SU-1001 in full: 500 USD.",
    });

    // 2. A small refund: docket asks, the AI SDK stops with an approval request.
    const messages: ModelMessage[] = [{ role: "user", content: "Refund 20 USD on SU-1002." }];
    const asked = await generateText({ model, tools, stopWhen: stepCountIs(4), messages });
    // Every step's messages: `response.messages` holds only the last step's.
    messages.push(...asked.responseMessages);
    const requests = asked.content.filter((part) => part.type === "tool-approval-request");
    // Here the app would show the request to a person; they approve.
    messages.push({
      role: "tool",
      content: requests.map((request) => ({
        type: "tool-approval-response" as const,
        approvalId: request.approvalId,
        approved: true,
        reason: "the customer called",
      })),
    });
    const second = await generateText({ model, tools, stopWhen: stepCountIs(4), messages });

    const trail = (await store.listEvents({ sessionId: session.id })).map((record) => ({
      callId: record.callId,
      type: record.type,
    }));
    return { denied: first.text, approved: second.text, trail };
  } finally {
    await store.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { createAnthropic } = await import("@ai-sdk/anthropic");
  const outcome = await main(createAnthropic()("claude-sonnet-4-5"));
  console.log(outcome.denied, "\n", outcome.approved);
  for (const event of outcome.trail) console.log(`${event.callId} ${event.type}`);
}
