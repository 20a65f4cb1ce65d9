import { describe, expect, it, onTestFinished } from "vitest";
import { requestTurn } from "../../src/loop/request-turn.js";
import { toPrompt } from "../../src/loop/to-prompt.js";
import type { TranscriptMessage } from "../../src/loop/transcript-message.js";
import { startFakeAnthropic } from "../support/fake-providers/fake-anthropic.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";
import { MALFORMED_ARGUMENTS, modelAt, TOOLS } from "./model-fixtures.js";
import { afterFirstTurn, afterSecondTurn, OPENING } from "./transcript-fixtures.js";

const MODEL = "anthropic:claude-sonnet-4-5";

async function fakeWith(script: ScriptItem[]) {
  const fake = await startFakeAnthropic(script);
  onTestFinished(() => fake.close());
  return { fake, model: await modelAt(MODEL, fake.url) };
}

const call = (id: string, args = '{"city":"Oslo"}') => ({
  id,
  name: "get_weather",
  arguments: args,
});

describe("docket transcripts sent to Anthropic", () => {
  it("carries a multi-turn tool exchange the Messages API accepts, with errors flagged", async () => {
    const { fake, model } = await fakeWith([
      {
        text: "Checking the weather.",
        toolCalls: [
          call("toolu_01W"),
          { id: "toolu_01G", name: "read_file", arguments: MALFORMED_ARGUMENTS },
        ],
      },
      {
        toolCalls: [{ id: "toolu_02R", name: "read_file", arguments: '{"path":"notes/todo.md"}' }],
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
    expect(fake.requests[2]?.body).toMatchObject({
      system: [{ type: "text", text: "You are docket's test agent." }],
    });
    expect((fake.requests[2]?.body as { messages?: unknown } | undefined)?.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Weather in Oslo, then read the notes." }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Checking the weather." },
          { type: "tool_use", id: "toolu_01W", name: "get_weather", input: { city: "Oslo" } },
          // The garbled arguments are replayed as an empty object: the API only takes objects.
          { type: "tool_use", id: "toolu_01G", name: "read_file", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01W", content: "14 °C, light rain" },
          {
            type: "tool_result",
            tool_use_id: "toolu_01G",
            content: "The arguments were not valid JSON.",
            is_error: true,
          },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "tool_use",
            id: "toolu_02R",
            name: "read_file",
            input: { path: "notes/todo.md" },
          },
        ],
      },
      {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "toolu_02R",
            content: "Refused: reading notes/ is not allowed.",
            is_error: true,
          },
          { type: "text", text: "Fine, just summarise." },
        ],
      },
    ]);
  });

  it("is rejected like the live API when a tool call has no result", async () => {
    const { fake, model } = await fakeWith([{ text: "never sent" }]);
    const transcript: TranscriptMessage[] = [
      { role: "user", text: "Weather?" },
      { role: "assistant", text: "", toolCalls: [call("toolu_1"), call("toolu_2")] },
      {
        role: "tool",
        results: [
          { callId: "toolu_1", name: "get_weather", status: "ok", text: "sun", isError: false },
        ],
      },
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
      "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2.",
    );
    expect(fake.requests).toHaveLength(1);
  });

  it("is rejected when results answer the calls out of order", async () => {
    const { model } = await fakeWith([{ text: "never sent" }]);
    const ok = (callId: string) => ({
      callId,
      name: "get_weather",
      status: "ok" as const,
      text: "sun",
      isError: false,
    });
    const transcript: TranscriptMessage[] = [
      { role: "user", text: "Weather?" },
      { role: "assistant", text: "", toolCalls: [call("toolu_1"), call("toolu_2")] },
      { role: "tool", results: [ok("toolu_2"), ok("toolu_1")] },
    ];
    const outcome = await requestTurn(model, {
      prompt: toPrompt(transcript),
      tools: TOOLS,
      signal: undefined,
    });

    expect(outcome).toMatchObject({ status: "failed", failure: { kind: "invalid_request" } });
    expect(outcome.status === "failed" && outcome.failure.message).toContain("out of order");
  });

  // An assistant turn with no text and no tool calls would become `content: []`, which Anthropic
  // rejects; toPrompt drops it so such a session can continue.
  it("accepts a transcript in which the model once replied with nothing", async () => {
    const { model } = await fakeWith([{ text: "Here I am." }]);
    const transcript: TranscriptMessage[] = [
      { role: "user", text: "Hello?" },
      { role: "assistant", text: "", toolCalls: [] },
      { role: "user", text: "Hello again?" },
    ];
    const outcome = await requestTurn(model, {
      prompt: toPrompt(transcript),
      tools: TOOLS,
      signal: undefined,
    });

    expect(outcome.status).toBe("ok");
  });
});
