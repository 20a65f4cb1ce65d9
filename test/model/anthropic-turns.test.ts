import { describe, expect, it, onTestFinished } from "vitest";
import { streamTurn } from "../../src/loop/stream-turn.js";
import {
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../support/fake-providers/fake-anthropic.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";
import { MALFORMED_ARGUMENTS, modelAt, TOOLS, userPrompt } from "./model-fixtures.js";

const MODEL = "anthropic:claude-sonnet-4-5";

async function fakeWith(script: ScriptItem[], chunks?: number) {
  const fake = await startFakeAnthropic(script, chunks ? { chunks } : {});
  onTestFinished(() => fake.close());
  return { fake, model: await modelAt(MODEL, fake.url) };
}

describe("anthropic turns against the Messages API", () => {
  it("streams text in several deltas with usage and the finish reason", async () => {
    const { fake, model } = await fakeWith([
      { text: "Oslo is mild today, 14 °C.", usage: { inputTokens: 42, outputTokens: 9 } },
    ]);
    const deltas: string[] = [];
    const turn = await streamTurn(model, {
      prompt: userPrompt("Weather in Oslo?"),
      tools: TOOLS,
      signal: undefined,
      onText: (delta) => deltas.push(delta),
    });

    expect(turn).toEqual({
      text: "Oslo is mild today, 14 °C.",
      toolCalls: [],
      inputTokens: 42,
      outputTokens: 9,
      finishReason: "stop",
    });
    expect(deltas.length).toBeGreaterThan(1);
    const [request] = fake.requests;
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers["x-api-key"]).toBe(FAKE_ANTHROPIC_KEY);
    expect(request?.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request?.body).toMatchObject({
      model: "claude-sonnet-4-5",
      stream: true,
      messages: [{ role: "user", content: [{ type: "text", text: "Weather in Oslo?" }] }],
      tools: [{ name: "get_weather" }, { name: "read_file" }],
    });
  });

  it("streams parallel tool calls in order, each with its id and argument text", async () => {
    const calls = [
      { id: "toolu_01A", name: "get_weather", arguments: '{"city":"Oslo"}' },
      { id: "toolu_01B", name: "get_weather", arguments: '{"city":"Lima"}' },
      { id: "toolu_01C", name: "read_file", arguments: '{"path":"README.md"}' },
    ];
    const { model } = await fakeWith([{ text: "Looking those up.", toolCalls: calls }]);
    const turn = await streamTurn(model, {
      prompt: userPrompt("Both cities"),
      tools: TOOLS,
      signal: undefined,
    });

    expect(turn.text).toBe("Looking those up.");
    expect(turn.toolCalls).toEqual(calls);
    expect(turn.finishReason).toBe("tool-calls");
  });

  it("returns malformed argument text byte for byte, as the server streamed it", async () => {
    const { model } = await fakeWith(
      [
        {
          toolCalls: [
            { id: "toolu_bad", name: "read_file", arguments: MALFORMED_ARGUMENTS },
            { id: "toolu_ok", name: "get_weather", arguments: '{ "city" : "Oslo" }' },
          ],
        },
      ],
      6,
    );
    const turn = await streamTurn(model, {
      prompt: userPrompt("Read it"),
      tools: TOOLS,
      signal: undefined,
    });

    expect(turn.toolCalls.map((call) => call.arguments)).toEqual([
      MALFORMED_ARGUMENTS,
      '{ "city" : "Oslo" }',
    ]);
    expect(Buffer.from(turn.toolCalls[0]?.arguments ?? "")).toEqual(
      Buffer.from(MALFORMED_ARGUMENTS),
    );
  });

  it("answers a non-streaming doGenerate with text and parallel tool calls", async () => {
    const { fake, model } = await fakeWith([
      {
        text: "Checking both.",
        toolCalls: [
          { id: "toolu_01A", name: "get_weather", arguments: '{"city":"Oslo"}' },
          { id: "toolu_01B", name: "read_file", arguments: '{"path":"a.txt"}' },
        ],
        usage: { inputTokens: 30, outputTokens: 12 },
      },
    ]);
    const result = await model.doGenerate({ prompt: userPrompt("Go"), tools: TOOLS });

    expect(result.content).toEqual([
      { type: "text", text: "Checking both." },
      expect.objectContaining({
        type: "tool-call",
        toolCallId: "toolu_01A",
        toolName: "get_weather",
      }),
      expect.objectContaining({
        type: "tool-call",
        toolCallId: "toolu_01B",
        toolName: "read_file",
      }),
    ]);
    const inputs = result.content.flatMap((part) =>
      part.type === "tool-call" ? [JSON.parse(part.input)] : [],
    );
    expect(inputs).toEqual([{ city: "Oslo" }, { path: "a.txt" }]);
    expect(result.finishReason.unified).toBe("tool-calls");
    expect(result.usage.inputTokens.total).toBe(30);
    expect(fake.requests[0]?.body).not.toHaveProperty("stream", true);
  });

  it("re-serialises tool input when not streaming: only streaming keeps the model's bytes", async () => {
    // A non-streaming Messages response carries input as a parsed object, so spacing is lost.
    const { model } = await fakeWith([
      { toolCalls: [{ id: "toolu_1", name: "get_weather", arguments: '{ "city" : "Oslo" }' }] },
    ]);
    const result = await model.doGenerate({ prompt: userPrompt("Go"), tools: TOOLS });

    expect(result.content).toEqual([
      expect.objectContaining({ type: "tool-call", input: '{"city":"Oslo"}' }),
    ]);
  });
});
