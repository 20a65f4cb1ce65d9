import { describe, expect, it, onTestFinished } from "vitest";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";

/* The fake's own wire format, checked with plain fetch so no provider package can paper over it. */

const HEADERS = { "content-type": "application/json", authorization: `Bearer ${FAKE_OPENAI_KEY}` };
const hello = { model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] };

async function fakeWith(script: ScriptItem[]) {
  const fake = await startFakeOpenAI(script);
  onTestFinished(() => fake.close());
  const post = (body: unknown, headers: Record<string, string> = HEADERS) =>
    fetch(`${fake.url}/v1/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
  return { fake, post };
}

/** The `data:` payloads of a stream, `[DONE]` kept as a string. */
function parseData(text: string): unknown[] {
  return text
    .trim()
    .split("\n\n")
    .map((block) => {
      expect(block.startsWith("data: ")).toBe(true);
      const payload = block.slice("data: ".length);
      return payload === "[DONE]" ? payload : JSON.parse(payload);
    });
}

type Chunk = {
  choices: {
    delta: {
      tool_calls?: { index: number; id?: string; function: { name?: string; arguments: string } }[];
    };
    finish_reason: string | null;
  }[];
  usage?: unknown;
};

describe("fake-openai on the wire", () => {
  it("answers a missing or wrong key with 401, invalid_api_key for a wrong one", async () => {
    const { post } = await fakeWith([{ text: "first" }]);
    const missing = await post(hello, { "content-type": "application/json" });
    const wrong = await post(hello, { ...HEADERS, authorization: "Bearer sk-nope-12345678" });

    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({
      error: { type: "invalid_request_error", code: null },
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({
      error: {
        message: expect.stringContaining("Incorrect API key provided"),
        type: "invalid_request_error",
        param: null,
        code: "invalid_api_key",
      },
    });
    expect(await (await post(hello)).json()).toMatchObject({
      choices: [{ message: { content: "first" } }],
    });
  });

  it("answers without streaming with tool_calls and finish_reason tool_calls", async () => {
    const { post } = await fakeWith([
      { toolCalls: [{ id: "call_1", name: "get_weather", arguments: '{"city":' }] },
    ]);
    const body = await (await post(hello)).json();

    expect(body).toMatchObject({
      object: "chat.completion",
      choices: [
        {
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              {
                id: "call_1",
                type: "function",
                function: { name: "get_weather", arguments: '{"city":' },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 25, completion_tokens: 10, total_tokens: 35 },
    });
  });

  it("streams parallel calls by index with split arguments, a usage chunk, then [DONE]", async () => {
    const calls = [
      { id: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' },
      { id: "call_2", name: "get_weather", arguments: '{"city":"Lima"}' },
    ];
    const { post } = await fakeWith([{ toolCalls: calls }]);
    const response = await post({
      ...hello,
      stream: true,
      stream_options: { include_usage: true },
    });
    const data = parseData(await response.text());

    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1) as Chunk[];
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 25 } });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    const deltas = chunks.flatMap((chunk) =>
      chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? []),
    );
    for (const [index, call] of calls.entries()) {
      const mine = deltas.filter((delta) => delta.index === index);
      expect(mine[0]).toMatchObject({ id: call.id, function: { name: call.name, arguments: "" } });
      expect(mine.length).toBeGreaterThan(2);
      expect(mine.map((delta) => delta.function.arguments).join("")).toBe(call.arguments);
    }
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("tool_calls");
  });

  it("sends no usage chunk unless asked", async () => {
    const { post } = await fakeWith([{ text: "hi" }]);
    const data = parseData(await (await post({ ...hello, stream: true })).text());

    expect(
      data.some((chunk) => typeof chunk === "object" && chunk !== null && "usage" in chunk),
    ).toBe(false);
  });

  it.each([
    {
      rule: "stream_options needs stream",
      body: { ...hello, stream_options: { include_usage: true } },
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
    },
    {
      rule: "a tool message answers a tool call",
      body: {
        ...hello,
        messages: [...hello.messages, { role: "tool", tool_call_id: "call_9", content: "x" }],
      },
      message:
        "messages with role 'tool' must be a response to a preceeding message with 'tool_calls'",
    },
    {
      rule: "every tool call is answered before the next message",
      body: {
        ...hello,
        messages: [
          ...hello.messages,
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "f", arguments: "{}" } },
            ],
          },
          { role: "user", content: "and?" },
        ],
      },
      message: "The following tool_call_ids did not have response messages: call_1",
    },
  ])("rejects a body that breaks the rule: $rule", async ({ body, message }) => {
    const { post } = await fakeWith([{ text: "never sent" }]);
    const response = await post(body);

    expect(response.status).toBe(400);
    const error = (await response.json()) as { error: { type: string; message: string } };
    expect(error.error.type).toBe("invalid_request_error");
    expect(error.error.message).toContain(message);
  });
});
