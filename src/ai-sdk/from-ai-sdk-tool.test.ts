import { generateText, jsonSchema, stepCountIs, tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../checkpoint/memory-event-sink.js";
import { createScriptedModel } from "../model/scripted-model.js";
import { docketTools } from "./docket-tools.js";
import { fromAiSdkTool } from "./from-ai-sdk-tool.js";

// A tool as an AI SDK app has it, untouched.
function weatherTool(seen: { city: string; callId: string; signal: boolean }[]) {
  return tool({
    description: "The weather in a city. Use it when asked about the weather.",
    inputSchema: z.object({ city: z.string().min(2).describe("The city.") }),
    execute: async ({ city }, { toolCallId, abortSignal }) => {
      seen.push({ city, callId: toolCallId, signal: abortSignal instanceof AbortSignal });
      return { city, celsius: 21 };
    },
  });
}

const call = (id: string, name: string, args: string) => ({ id, name, arguments: args });

describe("fromAiSdkTool", () => {
  it("brings the AI SDK tool's description, schema and execute through the checkpoint", async () => {
    const seen: { city: string; callId: string; signal: boolean }[] = [];
    const weather = fromAiSdkTool(weatherTool(seen), { name: "weather", writes: false });
    expect(weather).toMatchObject({
      name: "weather",
      description: "The weather in a city. Use it when asked about the weather.",
      writes: false,
      inputSchema: { type: "object", properties: { city: { type: "string" } } },
    });
    const events = createMemoryEventSink();
    const checkpoint = createCheckpoint({ tools: [weather], events });
    const result = await checkpoint.dispatch(call("c1", "weather", '{"city":"Lyon"}'));
    expect(result).toMatchObject({ status: "ok", output: { city: "Lyon", celsius: 21 } });
    expect(seen).toEqual([{ city: "Lyon", callId: "c1", signal: true }]);
    expect(events.forCall("c1").map((event) => event.type)).toEqual([
      "requested",
      "decided",
      "started",
      "finished",
    ]);
    // Arguments its schema refuses never reach its execute.
    const refused = await checkpoint.dispatch(call("c2", "weather", '{"city":"L"}'));
    expect(refused).toMatchObject({ status: "refused", reason: "invalid_arguments" });
    expect(seen).toHaveLength(1);
  });

  it("holds a write to the policy: asked, and refused with no approver to ask", async () => {
    const sent: string[] = [];
    const email = tool({
      description: "Send an email to a customer. Use it only to answer them.",
      inputSchema: jsonSchema<{ to: string; body: string }>({
        type: "object",
        properties: {
          to: { type: "string", description: "The address." },
          body: { type: "string", description: "The text." },
        },
        required: ["to", "body"],
        additionalProperties: false,
      }),
      execute: async ({ to }) => {
        sent.push(to);
        return "sent";
      },
    });
    const checkpoint = createCheckpoint({
      tools: [fromAiSdkTool(email, { name: "send_email", writes: true })],
      events: createMemoryEventSink(),
    });
    const asked = await checkpoint.dispatch(
      call("c1", "send_email", '{"to":"ada@example.com","body":"Hi"}'),
    );
    expect(asked).toMatchObject({ status: "refused", reason: "approval_required" });
    const invalid = await checkpoint.dispatch(call("c2", "send_email", '{"to":"ada@example.com"}'));
    expect(invalid).toMatchObject({ status: "refused", reason: "invalid_arguments" });
    expect(sent).toEqual([]);
  });

  it("gives a streaming execute's last value, and carries needsApproval: true over", async () => {
    const counter = tool({
      description: "Count to three. Use it to test streaming.",
      inputSchema: z.object({}),
      needsApproval: true,
      async *execute() {
        yield 1;
        yield 2;
        yield 3;
      },
    });
    const asked: string[] = [];
    const checkpoint = createCheckpoint({
      tools: [fromAiSdkTool(counter, { name: "count", writes: false })],
      // A read the policy allows: only the tool's own needsApproval makes it ask.
      approvals: ({ callId }) => {
        asked.push(callId);
        return { decision: "approve", by: "lead" };
      },
      events: createMemoryEventSink(),
    });
    const result = await checkpoint.dispatch(call("c1", "count", "{}"));
    expect(result).toMatchObject({ status: "ok", output: 3 });
    expect(asked).toEqual(["c1"]);
  });

  it("refuses what it cannot bring over faithfully, with the tool's name", () => {
    const noExecute = tool({ description: "Client side.", inputSchema: z.object({}) });
    expect(() => fromAiSdkTool(noExecute, { name: "client_side", writes: false })).toThrow(
      /"client_side".*no execute/,
    );
    const asks = tool({
      description: "Refund. Use it when owed.",
      inputSchema: z.object({ amount: z.number().describe("USD.") }),
      needsApproval: async ({ amount }) => amount > 100,
      execute: async ({ amount }) => amount,
    });
    expect(() => fromAiSdkTool(asks, { name: "refund", writes: true })).toThrow(
      /needsApproval is a function/,
    );
    const ceiling = fromAiSdkTool(asks, {
      name: "refund",
      writes: true,
      needsApproval: (args) => Number(args.amount) > 100,
    });
    expect(ceiling.name).toBe("refund");
  });

  it("runs inside the AI SDK's own loop through docketTools, one checkpoint for both", async () => {
    const seen: { city: string; callId: string; signal: boolean }[] = [];
    const checkpoint = createCheckpoint({
      tools: [fromAiSdkTool(weatherTool(seen), { name: "weather", writes: false })],
    });
    const model = createScriptedModel({
      source: "from-ai-sdk-tool.test",
      turns: [
        { toolCalls: [{ id: "c1", name: "weather", arguments: '{"city":"Oslo"}' }] },
        { text: "21 degrees in Oslo.", toolCalls: [] },
      ],
    });
    const result = await generateText({
      model,
      tools: docketTools(checkpoint),
      stopWhen: stepCountIs(3),
      prompt: "Weather in Oslo?",
    });
    expect(result.text).toBe("21 degrees in Oslo.");
    expect(seen).toEqual([{ city: "Oslo", callId: "c1", signal: true }]);
  });
});
