/**
 * An agent tested with a scripted model (docs/scripted-model.md): the script plays the model's
 * turns, the tools, policy and store are real, and the assertions read what really happened.
 * Run it: `npx vitest run examples/scripted`.
 */
import { createHarness, createScriptedModel, defineTool, parseModelScript } from "docket";
import { expect, it } from "vitest";
import { z } from "zod";

const SCRIPT = `
turns:
  - text: "Refunding 400 USD."
    tool_calls:
      - { id: call_refund, name: issue_refund, arguments: { order_id: SU-1, amount: 400 } }
  - when: { call: call_refund, result: error, contains: refund-ceiling }
    text: "That needs a lead; I have asked one."
    else:
      text: "Refunded."
`;

it("answers from what happened: a refund the policy denies is not reported as done", async () => {
  const refunded: number[] = [];
  const issueRefund = defineTool({
    name: "issue_refund",
    description: "Refund an order. Use it when the customer is owed money.",
    input: z.object({
      order_id: z.string().describe("The order id."),
      amount: z.number().positive().describe("The refund in USD."),
    }),
    writes: true,
    handler: ({ amount }) => {
      refunded.push(amount);
      return { refunded: amount };
    },
  });
  const model = createScriptedModel(parseModelScript(SCRIPT, "scripted-desk"));
  const harness = createHarness({
    model,
    tools: [issueRefund],
    store: ":memory:",
    policy: {
      rules: [
        {
          id: "refund-ceiling",
          decision: "deny",
          tool: "issue_refund",
          when: "args.amount > 150",
          reason: "refunds over 150 USD need a lead",
        },
      ],
    },
  });
  const result = await harness.run("Refund my desk.");
  await harness.close();

  expect(result).toMatchObject({
    status: "completed",
    text: "That needs a lead; I have asked one.",
  });
  expect(refunded).toEqual([]);
  // What the model was sent: the refusal, in words, as an error result.
  expect(JSON.stringify(model.requests[1]?.prompt)).toContain("refunds over 150 USD need a lead");
});
