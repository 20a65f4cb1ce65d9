import { describe, expect, it, onTestFinished } from "vitest";
import { requestTurn } from "../../src/loop/request-turn.js";
import { toPrompt } from "../../src/loop/to-prompt.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";
import {
  CHAT_COMPLETIONS_PROVIDERS,
  MALFORMED_ARGUMENTS,
  modelAt,
  TOOLS,
} from "./model-fixtures.js";
import { afterFirstTurn, afterSecondTurn, OPENING } from "./transcript-fixtures.js";

const call = (id: string, args = '{"city":"Oslo"}') => ({
  id,
  name: "get_weather",
  arguments: args,
});
const ok = (callId: string) => ({
  callId,
  name: "get_weather",
  status: "ok" as const,
  text: "sun",
  isError: false,
});

describe.each(CHAT_COMPLETIONS_PROVIDERS)(
  "docket transcripts sent to $provider",
  ({ model: modelString }) => {
    async function fakeWith(script: ScriptItem[]) {
      const fake = await startFakeOpenAI(script);
      onTestFinished(() => fake.close());
      return { fake, model: await modelAt(modelString, fake.url) };
    }

    it("carries a multi-turn tool exchange Chat Completions accepts, results in call order", async () => {
      const { fake, model } = await fakeWith([
        {
          text: "Checking the weather.",
          toolCalls: [
            call("call_W1"),
            { id: "call_G1", name: "read_file", arguments: MALFORMED_ARGUMENTS },
          ],
        },
        {
          toolCalls: [{ id: "call_R2", name: "read_file", arguments: '{"path":"notes/todo.md"}' }],
        },
        { text: "Oslo: 14 °C and rain. I could not read the notes." },
      ]);
      const ask = (messages: TranscriptMessage[]) =>
        requestTurn(
          model,
          { prompt: toPrompt(messages), tools: TOOLS, signal: undefined },
          { maxRetries: 0 },
        );

      const first = await ask([...OPENING]);
      if (first.status !== "ok") throw new Error(first.failure.message);
      const second = await ask(afterFirstTurn(first.turn.toolCalls));
      if (second.status !== "ok") throw new Error(second.failure.message);
      const third = await ask(afterSecondTurn(first.turn.toolCalls, second.turn.toolCalls));

      expect(third).toMatchObject({
        status: "ok",
        turn: { text: "Oslo: 14 °C and rain. I could not read the notes." },
      });
      expect(fake.requests).toHaveLength(3);
      const messages = (fake.requests[2]?.body as { messages?: unknown } | undefined)?.messages;
      expect(messages).toEqual([
        { role: "system", content: "You are docket's test agent." },
        { role: "user", content: "Weather in Oslo, then read the notes." },
        {
          role: "assistant",
          content: "Checking the weather.",
          tool_calls: [
            {
              id: "call_W1",
              type: "function",
              function: { name: "get_weather", arguments: '{"city":"Oslo"}' },
            },
            // The garbled arguments are replayed as an empty object, as for every provider.
            { id: "call_G1", type: "function", function: { name: "read_file", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "call_W1", content: "14 °C, light rain" },
        // Chat Completions has no error flag on tool messages: the text has to say it failed.
        { role: "tool", tool_call_id: "call_G1", content: "The arguments were not valid JSON." },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_R2",
              type: "function",
              function: { name: "read_file", arguments: '{"path":"notes/todo.md"}' },
            },
          ],
        },
        {
          role: "tool",
          tool_call_id: "call_R2",
          content: "Refused: reading notes/ is not allowed.",
        },
        { role: "user", content: "Fine, just summarise." },
      ]);
    });

    it("is rejected like the live API when a tool call has no result", async () => {
      const { fake, model } = await fakeWith([{ text: "never sent" }]);
      const transcript: TranscriptMessage[] = [
        { role: "user", text: "Weather?" },
        { role: "assistant", text: "", toolCalls: [call("call_1"), call("call_2")] },
        { role: "tool", results: [ok("call_1")] },
        { role: "user", text: "Well?" },
      ];
      const outcome = await requestTurn(model, {
        prompt: toPrompt(transcript),
        tools: TOOLS,
        signal: undefined,
      });

      expect(outcome).toMatchObject({
        status: "failed",
        attempts: 1,
        failure: { kind: "invalid_request" },
      });
      expect(outcome.status === "failed" && outcome.failure.message).toContain(
        "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2",
      );
      expect(fake.requests).toHaveLength(1);
    });

    it("is rejected when results answer the calls out of order", async () => {
      const { model } = await fakeWith([{ text: "never sent" }]);
      const transcript: TranscriptMessage[] = [
        { role: "user", text: "Weather?" },
        { role: "assistant", text: "", toolCalls: [call("call_1"), call("call_2")] },
        { role: "tool", results: [ok("call_2"), ok("call_1")] },
      ];
      const outcome = await requestTurn(model, {
        prompt: toPrompt(transcript),
        tools: TOOLS,
        signal: undefined,
      });

      expect(outcome).toMatchObject({ status: "failed", failure: { kind: "invalid_request" } });
      expect(outcome.status === "failed" && outcome.failure.message).toContain("out of order");
    });
  },
);
