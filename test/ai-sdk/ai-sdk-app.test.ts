import { createAnthropic } from "@ai-sdk/anthropic";
import { describe, expect, it, onTestFinished } from "vitest";
import { main } from "../../examples/ai-sdk-app.js";
import {
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../support/fake-providers/fake-anthropic.js";

describe("examples/ai-sdk-app", () => {
  it("runs generateText with docket's tools: a denied call, an approved call, both on the trail", async () => {
    const fake = await startFakeAnthropic([
      {
        toolCalls: [
          { id: "toolu_1", name: "issue_refund", arguments: '{"order_id":"SU-1001","amount":500}' },
        ],
      },
      { text: "I cannot refund 500 USD: refunds over 150 USD need a lead." },
      {
        toolCalls: [
          { id: "toolu_2", name: "issue_refund", arguments: '{"order_id":"SU-1002","amount":20}' },
        ],
      },
      { text: "Refunded 20 USD on SU-1002." },
    ]);
    onTestFinished(() => fake.close());
    const model = createAnthropic({ apiKey: FAKE_ANTHROPIC_KEY, baseURL: `${fake.url}/v1` })(
      "claude-sonnet-4-5",
    );

    const outcome = await main(model);

    expect(outcome.denied).toContain("cannot refund");
    expect(outcome.approved).toBe("Refunded 20 USD on SU-1002.");
    const types = (callId: string) =>
      outcome.trail.filter((e) => e.callId === callId).map((e) => e.type);
    expect(types("toolu_1")).toEqual(expect.arrayContaining(["decided", "refused"]));
    expect(types("toolu_1")).not.toContain("started");
    expect(types("toolu_2")).toEqual(
      expect.arrayContaining(["approval_requested", "awaiting_approval", "approved", "finished"]),
    );
    // The approved refund ran once, after the approval.
    expect(types("toolu_2").filter((t) => t === "started")).toHaveLength(1);
    expect(types("toolu_2").indexOf("approved")).toBeLessThan(types("toolu_2").indexOf("started"));
    // What reached the model: the refusal in words, flagged as an error; the refund's output.
    const bodies = fake.requests.map((r) => JSON.stringify(r.body));
    expect(bodies[1]).toContain("refunds over 150 USD need a lead");
    expect(bodies[1]).toContain('"is_error":true');
    expect(bodies[3]).toContain("refunded 20 USD on SU-1002");
    expect(fake.requests).toHaveLength(4);
    // The menu the model saw is docket's schema for each tool.
    expect((fake.requests[0]?.body as { tools?: unknown } | undefined)?.tools).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          name: "issue_refund",
          input_schema: expect.objectContaining({
            properties: {
              order_id: { type: "string", description: "The order id." },
              amount: expect.objectContaining({
                type: "number",
                description: "The refund in USD.",
              }),
            },
            required: ["order_id", "amount"],
          }),
        }),
      ]),
    );
  });
});
