import { describe, expect, it, onTestFinished } from "vitest";
import { streamTurn } from "../../src/loop/stream-turn.js";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";
import {
  CHAT_COMPLETIONS_PROVIDERS,
  MALFORMED_ARGUMENTS,
  modelAt,
  TOOLS,
  userPrompt,
} from "./model-fixtures.js";

describe.each(CHAT_COMPLETIONS_PROVIDERS)(
  "$provider turns against Chat Completions",
  ({ provider, model: modelString }) => {
    async function fakeWith(script: ScriptItem[], chunks?: number) {
      const fake = await startFakeOpenAI(script, chunks ? { chunks } : {});
      onTestFinished(() => fake.close());
      return { fake, model: await modelAt(modelString, fake.url) };
    }

    it("streams text in several deltas", async () => {
      const { fake, model } = await fakeWith([
        { text: "Lima is warm, 24 °C.", usage: { inputTokens: 40, outputTokens: 8 } },
      ]);
      const deltas: string[] = [];
      const turn = await streamTurn(model, {
        prompt: userPrompt("Weather in Lima?"),
        tools: TOOLS,
        signal: undefined,
        onText: (delta) => deltas.push(delta),
      });

      expect(turn.text).toBe("Lima is warm, 24 °C.");
      expect(turn.toolCalls).toEqual([]);
      expect(turn.finishReason).toBe("stop");
      expect(deltas.filter((delta) => delta !== "").length).toBeGreaterThan(1);
      const [request] = fake.requests;
      expect(request?.path).toBe("/v1/chat/completions");
      expect(request?.headers.authorization).toBe(`Bearer ${FAKE_OPENAI_KEY}`);
      expect(request?.body).toMatchObject({
        stream: true,
        messages: [{ role: "user", content: "Weather in Lima?" }],
        tools: [
          { type: "function", function: { name: "get_weather" } },
          { function: { name: "read_file" } },
        ],
      });
    });

    it("streams parallel tool calls by index, in order, each with its id", async () => {
      const calls = [
        { id: "call_a1", name: "get_weather", arguments: '{"city":"Oslo"}' },
        { id: "call_b2", name: "get_weather", arguments: '{"city":"Lima"}' },
        { id: "call_c3", name: "read_file", arguments: '{"path":"README.md"}' },
      ];
      const { model } = await fakeWith([{ toolCalls: calls }]);
      const turn = await streamTurn(model, {
        prompt: userPrompt("Both"),
        tools: TOOLS,
        signal: undefined,
      });

      expect(turn.text).toBe("");
      expect(turn.toolCalls).toEqual(calls);
      expect(turn.finishReason).toBe("tool-calls");
    });

    it("returns malformed argument text byte for byte, as the server streamed it", async () => {
      const { model } = await fakeWith(
        [
          {
            toolCalls: [
              { id: "call_bad", name: "read_file", arguments: MALFORMED_ARGUMENTS },
              { id: "call_ok", name: "get_weather", arguments: '{ "city" : "Oslo" }' },
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

      expect(turn.toolCalls).toEqual([
        { id: "call_bad", name: "read_file", arguments: MALFORMED_ARGUMENTS },
        { id: "call_ok", name: "get_weather", arguments: '{ "city" : "Oslo" }' },
      ]);
      expect(Buffer.from(turn.toolCalls[0]?.arguments ?? "")).toEqual(
        Buffer.from(MALFORMED_ARGUMENTS),
      );
    });

    it("answers a non-streaming doGenerate with text and raw tool-call arguments", async () => {
      const { fake, model } = await fakeWith([
        {
          text: "Checking.",
          toolCalls: [
            { id: "call_a1", name: "get_weather", arguments: '{ "city" : "Oslo" }' },
            { id: "call_b2", name: "read_file", arguments: MALFORMED_ARGUMENTS },
          ],
          usage: { inputTokens: 31, outputTokens: 11 },
        },
      ]);
      const result = await model.doGenerate({ prompt: userPrompt("Go"), tools: TOOLS });

      expect(result.content).toEqual([
        { type: "text", text: "Checking." },
        expect.objectContaining({
          type: "tool-call",
          toolCallId: "call_a1",
          input: '{ "city" : "Oslo" }',
        }),
        expect.objectContaining({
          type: "tool-call",
          toolCallId: "call_b2",
          input: MALFORMED_ARGUMENTS,
        }),
      ]);
      expect(result.finishReason.unified).toBe("tool-calls");
      expect(result.usage.inputTokens.total).toBe(31);
      expect(fake.requests[0]?.body).not.toHaveProperty("stream", true);
    });

    if (provider === "openai") {
      it("asks for usage when streaming and reports it", async () => {
        const { fake, model } = await fakeWith([
          { text: "ok", usage: { inputTokens: 40, outputTokens: 8 } },
        ]);
        const turn = await streamTurn(model, {
          prompt: userPrompt("hi"),
          tools: [],
          signal: undefined,
        });

        expect(fake.requests[0]?.body).toMatchObject({ stream_options: { include_usage: true } });
        expect([turn.inputTokens, turn.outputTokens]).toEqual([40, 8]);
      });
    }
  },
);
