import { generateText, type ModelMessage, stepCountIs, streamText } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Approver } from "../approval/approval.js";
import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../checkpoint/memory-event-sink.js";
import type { ModelScript, ScriptedCall } from "../model/model-script.js";
import { createScriptedModel } from "../model/scripted-model.js";
import type { PolicyInput } from "../policy/policy.js";
import { defineTool } from "../tool/define-tool.js";
import { createAiSdkApprovals } from "./ai-sdk-approvals.js";
import { docketTools } from "./docket-tools.js";

function refundRig(options: { policy?: PolicyInput; approvals?: Approver } = {}) {
  const ran: { order_id: string; amount: number }[] = [];
  const refund = defineTool({
    name: "issue_refund",
    description: "Refund an order.",
    input: z.object({ order_id: z.string(), amount: z.number().positive() }),
    writes: true,
    handler: (args) => {
      ran.push(args);
      return `refunded ${args.amount}`;
    },
  });
  const events = createMemoryEventSink();
  const checkpoint = createCheckpoint({
    tools: [refund],
    events,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.approvals ? { approvals: options.approvals } : {}),
  });
  return { checkpoint, events, ran };
}

const call = (id: string, args: string): ScriptedCall => ({
  id,
  name: "issue_refund",
  arguments: args,
});

function script(...turns: ModelScript["turns"]): ModelScript {
  return { source: "docket-tools.test", turns };
}

const ceiling: PolicyInput = {
  rules: [
    {
      id: "refund-ceiling",
      decision: "deny",
      tool: "issue_refund",
      when: "args.amount > 150",
      reason: "refunds over 150 need a lead",
    },
    { id: "small-refunds", decision: "allow", tool: "issue_refund", when: "args.amount <= 150" },
  ],
};

describe("docketTools inside generateText", () => {
  it("a deny rule blocks the call: the handler never runs and the model reads why", async () => {
    const { checkpoint, events, ran } = refundRig({ policy: ceiling });
    const model = createScriptedModel(
      script(
        { toolCalls: [call("c1", '{"order_id":"SU-1","amount":500}')] },
        { text: "Not allowed.", toolCalls: [] },
      ),
    );
    const result = await generateText({
      model,
      tools: docketTools(checkpoint),
      stopWhen: stepCountIs(3),
      prompt: "refund",
    });

    expect(ran).toEqual([]);
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      status: "refused",
      reason: "denied",
    });
    const sent = model.requests[1]?.prompt.find((m) => m.role === "tool");
    expect(sent?.content[0]).toMatchObject({
      type: "tool-result",
      toolCallId: "c1",
      output: {
        type: "error-text",
        value: expect.stringContaining("refunds over 150 need a lead"),
      },
    });
    expect(events.events.filter((e) => e.callId === "c1").map((e) => e.type)).not.toContain(
      "started",
    );
  });

  it("an allowed call runs once through the checkpoint, with the model's call id", async () => {
    const { checkpoint, events, ran } = refundRig({ policy: ceiling });
    const model = createScriptedModel(
      script(
        { toolCalls: [call("c1", '{"order_id":"SU-1","amount":20}')] },
        { text: "Done.", toolCalls: [] },
      ),
    );
    await generateText({
      model,
      tools: docketTools(checkpoint),
      stopWhen: stepCountIs(3),
      prompt: "refund",
    });

    expect(ran).toEqual([{ order_id: "SU-1", amount: 20 }]);
    expect(events.events.filter((e) => e.type === "finished").map((e) => e.callId)).toEqual(["c1"]);
  });

  it("arguments the schema refuses never reach the handler: docket validates, whatever the AI SDK let through", async () => {
    const { checkpoint, ran } = refundRig({ policy: ceiling });
    const model = createScriptedModel(
      script(
        { toolCalls: [call("c1", '{"order_id":"SU-1","amount":-5,"extra":1}')] },
        { text: "Hm.", toolCalls: [] },
      ),
    );
    const result = await generateText({
      model,
      tools: docketTools(checkpoint),
      stopWhen: stepCountIs(3),
      prompt: "refund",
    });

    expect(ran).toEqual([]);
    expect(result.steps[0]?.toolResults[0]?.output).toMatchObject({
      status: "refused",
      reason: "invalid_arguments",
    });
  });

  it("without AI SDK approvals, the checkpoint's own approver answers an ask inside execute", async () => {
    const { checkpoint, ran } = refundRig({
      approvals: ({ args }) =>
        Number(args.amount) <= 50
          ? { decision: "approve", by: "lead" }
          : { decision: "deny", by: "lead", reason: "too much" },
    });
    const model = createScriptedModel(
      script(
        {
          toolCalls: [
            call("c1", '{"order_id":"SU-1","amount":20}'),
            call("c2", '{"order_id":"SU-2","amount":90}'),
          ],
        },
        { text: "One of two.", toolCalls: [] },
      ),
    );
    const result = await generateText({
      model,
      tools: docketTools(checkpoint),
      stopWhen: stepCountIs(3),
      prompt: "refund",
    });

    expect(ran).toEqual([{ order_id: "SU-1", amount: 20 }]);
    expect(
      result.steps[0]?.toolResults.map((r) => (r.output as { status: string }).status),
    ).toEqual(["ok", "refused"]);
    expect(JSON.stringify(model.requests[1]?.prompt)).toContain(
      "lead denied this call to issue_refund: too much",
    );
  });

  it("with AI SDK approvals, an ask becomes a tool approval request; a denial is recorded and nothing runs", async () => {
    const approvals = createAiSdkApprovals({ by: "ada" });
    const { checkpoint, events, ran } = refundRig({ approvals: approvals.approver });
    const tools = docketTools(checkpoint, { approvals });
    const model = createScriptedModel(
      script(
        { toolCalls: [call("c1", '{"order_id":"SU-1","amount":20}')] },
        { text: "Understood.", toolCalls: [] },
      ),
    );
    const messages: ModelMessage[] = [{ role: "user", content: "refund" }];
    const asked = await generateText({ model, tools, stopWhen: stepCountIs(3), messages });
    const request = asked.content.find((p) => p.type === "tool-approval-request");
    expect(request).toMatchObject({ toolCall: { toolCallId: "c1" } });
    expect(ran).toEqual([]);

    messages.push(...asked.responseMessages, {
      role: "tool",
      content: [
        {
          type: "tool-approval-response",
          approvalId: request?.approvalId ?? "",
          approved: false,
          reason: "no",
        },
      ],
    });
    await approvals.settle(checkpoint, messages);
    await generateText({ model, tools, stopWhen: stepCountIs(3), messages });

    expect(ran).toEqual([]);
    const types = events.events.filter((e) => e.callId === "c1").map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(["awaiting_approval", "approval_denied", "refused"]),
    );
    expect(types).not.toContain("started");
  });

  it("with AI SDK approvals, an approval is recorded under the person's name before the call runs once", async () => {
    const approvals = createAiSdkApprovals({ by: "ada" });
    const { checkpoint, events, ran } = refundRig({ approvals: approvals.approver });
    const tools = docketTools(checkpoint, { approvals });
    const model = createScriptedModel(
      script(
        { toolCalls: [call("c1", '{"order_id":"SU-1","amount":20}')] },
        { text: "Refunded.", toolCalls: [] },
      ),
    );
    const messages: ModelMessage[] = [{ role: "user", content: "refund" }];
    const asked = await generateText({ model, tools, stopWhen: stepCountIs(3), messages });
    const request = asked.content.find((p) => p.type === "tool-approval-request");
    messages.push(...asked.responseMessages, {
      role: "tool",
      content: [
        { type: "tool-approval-response", approvalId: request?.approvalId ?? "", approved: true },
      ],
    });
    const done = await generateText({ model, tools, stopWhen: stepCountIs(3), messages });

    expect(done.text).toBe("Refunded.");
    expect(ran).toEqual([{ order_id: "SU-1", amount: 20 }]);
    const approved = events.events.find((e) => e.callId === "c1" && e.type === "approved");
    expect(approved).toMatchObject({ by: "ada" });
  });

  it("an approval answers only the call it was asked for: a reused id with other arguments is asked again", async () => {
    const approvals = createAiSdkApprovals({ by: "ada" });
    const { checkpoint, ran } = refundRig({ approvals: approvals.approver });
    const tools = docketTools(checkpoint, { approvals });
    const model = createScriptedModel(
      script(
        { toolCalls: [call("call_0", '{"order_id":"SU-1","amount":20}')] },
        { text: "?", toolCalls: [] },
      ),
    );
    const messages: ModelMessage[] = [{ role: "user", content: "refund" }];
    const asked = await generateText({ model, tools, stopWhen: stepCountIs(3), messages });
    const request = asked.content.find((p) => p.type === "tool-approval-request");
    messages.push(...asked.responseMessages, {
      role: "tool",
      content: [
        { type: "tool-approval-response", approvalId: request?.approvalId ?? "", approved: true },
      ],
    });
    // The app records the approval but never continues that conversation; the model then reuses
    // the id for a bigger refund.
    await approvals.settle(checkpoint, messages);
    const again = await tools.issue_refund?.execute?.({ order_id: "SU-9", amount: 140 }, {
      toolCallId: "call_0",
      messages: [],
      context: {},
    } as never);

    expect(ran).toEqual([]);
    expect(again).toMatchObject({ status: "awaiting_approval" });
  });

  it("works the same inside streamText: the deny rule holds", async () => {
    const { checkpoint, ran } = refundRig({ policy: ceiling });
    const model = createScriptedModel(
      script(
        { toolCalls: [call("c1", '{"order_id":"SU-1","amount":900}')] },
        { text: "Refused, sorry.", toolCalls: [] },
      ),
    );
    const stream = streamText({
      model,
      tools: docketTools(checkpoint),
      stopWhen: stepCountIs(3),
      prompt: "refund",
    });
    const results: unknown[] = [];
    for await (const part of stream.fullStream)
      if (part.type === "tool-result") results.push(part.output);

    expect(await stream.text).toBe("Refused, sorry.");
    expect(results).toMatchObject([{ status: "refused", reason: "denied" }]);
    expect(ran).toEqual([]);
  });

  it("a result decided while the AI SDK asked is returned only for the same arguments", async () => {
    const approvals = createAiSdkApprovals({ by: "ada" });
    const { checkpoint, ran } = refundRig({
      policy: {
        rules: [
          { id: "small", decision: "allow", tool: "issue_refund", when: "args.amount <= 50" },
        ],
      },
      approvals: approvals.approver,
    });
    const refund = docketTools(checkpoint, { approvals }).issue_refund;
    const options = { toolCallId: "call_0", messages: [], context: {} } as never;
    const asks = refund?.needsApproval as unknown as (
      input: unknown,
      options: never,
    ) => Promise<boolean>;

    expect(await asks({ order_id: "SU-1", amount: 20 }, options)).toBe(false);
    // The same id with other arguments reaches execute: it is a new call, not the recorded one.
    const output = await refund?.execute?.({ order_id: "SU-9", amount: 140 }, options);

    expect(ran).toEqual([{ order_id: "SU-1", amount: 20 }]);
    expect(output).toMatchObject({ status: "awaiting_approval" });
    expect(JSON.stringify(output)).not.toContain("refunded 20");
  });
});
