import { generateText, type ModelMessage, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createAiSdkApprovals,
  createCheckpoint,
  createMemoryEventSink,
  defineTool,
  docketTools,
} from "../../src/index.js";
import { createScriptedModel } from "../../src/model/scripted-model.js";

const call = (id: string, amount: number) => ({
  id,
  name: "issue_refund",
  arguments: JSON.stringify({ order_id: "SU-1", amount }),
});

// docs/ai-sdk.md and examples/ai-sdk-app.ts keep the history with `responseMessages`: with
// `stopWhen`, a run of several steps stops for an approval, and every step must go back.
describe("an AI SDK conversation stopped for an approval after several steps", () => {
  it("keeps every step's calls and results in the history sent after the approval", async () => {
    const ran: number[] = [];
    const refund = defineTool({
      name: "issue_refund",
      description: "Refund an order. Use it when the customer is owed money.",
      input: z.object({
        order_id: z.string().describe("The order id."),
        amount: z.number().positive().describe("USD."),
      }),
      writes: true,
      handler: ({ amount }) => {
        ran.push(amount);
        return `refunded ${amount}`;
      },
    });
    const approvals = createAiSdkApprovals({ by: "ada@support" });
    const checkpoint = createCheckpoint({
      tools: [refund],
      events: createMemoryEventSink(),
      policy: ({ args }) =>
        Number(args.amount) <= 150
          ? { decision: "allow", rule: "small" }
          : { decision: "ask", rule: "large" },
      approvals: approvals.approver,
    });
    const tools = docketTools(checkpoint, { sessionId: "s1", approvals });
    const model = createScriptedModel({
      source: "step-history",
      turns: [
        { toolCalls: [call("c1", 20)] },
        { toolCalls: [call("c2", 400)] },
        { text: "Both refunds are done.", toolCalls: [] },
      ],
    });
    const messages: ModelMessage[] = [{ role: "user", content: "Refund 20, then 400." }];
    const asked = await generateText({ model, tools, stopWhen: stepCountIs(4), messages });
    expect(asked.steps).toHaveLength(2);
    // The last step alone would lose the first refund: its call and its result.
    expect(JSON.stringify(asked.response.messages)).not.toContain('"c1"');
    messages.push(...asked.responseMessages);
    const request = asked.content.find((part) => part.type === "tool-approval-request");
    messages.push({
      role: "tool",
      content: [
        {
          type: "tool-approval-response",
          approvalId: request?.approvalId ?? "",
          approved: true,
        },
      ],
    });
    const done = await generateText({ model, tools, stopWhen: stepCountIs(4), messages });
    expect(done.text).toBe("Both refunds are done.");
    expect(ran).toEqual([20, 400]);
    const sent = JSON.stringify(model.requests.at(-1)?.prompt);
    expect(sent).toContain('"toolCallId":"c1"');
    expect(sent).toContain("refunded 20");
    expect(sent).toContain("refunded 400");
  });
});
