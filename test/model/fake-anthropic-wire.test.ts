import { describe, expect, it, onTestFinished } from "vitest";
import {
  anthropicError,
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../support/fake-providers/fake-anthropic.js";
import type { ScriptItem } from "../support/fake-providers/fake-script.js";

/* The fake's own wire format, checked with plain fetch so no provider package can paper over it. */

const HEADERS = {
  "content-type": "application/json",
  "x-api-key": FAKE_ANTHROPIC_KEY,
  "anthropic-version": "2023-06-01",
};
const hello = {
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  messages: [{ role: "user", content: "Hi" }],
};

async function fakeWith(script: ScriptItem[]) {
  const fake = await startFakeAnthropic(script);
  onTestFinished(() => fake.close());
  const post = (body: unknown, headers: Record<string, string> = HEADERS) =>
    fetch(`${fake.url}/v1/messages`, { method: "POST", headers, body: JSON.stringify(body) });
  return { fake, post };
}

function parseEvents(
  text: string,
): { event: string; data: { type: string; [key: string]: unknown } }[] {
  return text
    .trim()
    .split("\n\n")
    .map((block) => {
      const [eventLine = "", dataLine = ""] = block.split("\n");
      return {
        event: eventLine.replace(/^event: /, ""),
        data: JSON.parse(dataLine.replace(/^data: /, "")),
      };
    });
}

describe("fake-anthropic on the wire", () => {
  it("answers a wrong key with 401 authentication_error and keeps the script item", async () => {
    const { post } = await fakeWith([{ text: "first" }]);
    const refused = await post(hello, { ...HEADERS, "x-api-key": "sk-ant-nope" });

    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key" },
    });
    const accepted = await post(hello);
    expect(await accepted.json()).toMatchObject({ content: [{ type: "text", text: "first" }] });
  });

  it("requires the anthropic-version header", async () => {
    const { post } = await fakeWith([{ text: "never sent" }]);
    const { "anthropic-version": _, ...withoutVersion } = HEADERS;
    const response = await post(hello, withoutVersion);

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { message: "anthropic-version: header is required" },
    });
  });

  it("answers without streaming with a complete message", async () => {
    const { post } = await fakeWith([
      {
        text: "On it.",
        toolCalls: [{ id: "toolu_1", name: "get_weather", arguments: '{"city":"Oslo"}' }],
      },
    ]);
    const body = await (await post(hello)).json();

    expect(body).toEqual({
      id: expect.stringMatching(/^msg_/),
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: "On it." },
        { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Oslo" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 25, output_tokens: 10 },
    });
  });

  it("streams named events in the documented order, tool input as partial_json pieces", async () => {
    const args = '{"city":"Oslo","units":"metric"}';
    const { post } = await fakeWith([
      { text: "Checking.", toolCalls: [{ id: "toolu_1", name: "get_weather", arguments: args }] },
    ]);
    const response = await post({ ...hello, stream: true });
    const events = parseEvents(await response.text());

    expect(response.headers.get("content-type")).toContain("text/event-stream");
    expect(events.every(({ event, data }) => event === data.type)).toBe(true);
    const order = events.map(({ event }) => event).filter((event, i, all) => event !== all[i - 1]);
    expect(order).toEqual([
      "message_start",
      "ping",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "ping",
      "message_delta",
      "message_stop",
    ]);
    const pieces = events.flatMap(({ data }) => {
      const delta = data.delta as { type?: string; partial_json?: string } | undefined;
      return delta?.type === "input_json_delta" ? [delta.partial_json ?? ""] : [];
    });
    expect(pieces[0]).toBe("");
    expect(pieces.length).toBeGreaterThan(2);
    expect(pieces.join("")).toBe(args);
    expect(events.at(-2)?.data).toMatchObject({
      delta: { stop_reason: "tool_use" },
      usage: { output_tokens: 10 },
    });
  });

  it("passes a scripted error through with its status, body and retry-after", async () => {
    const { post } = await fakeWith([
      {
        error: {
          status: 529,
          body: anthropicError("overloaded_error", "Overloaded"),
          headers: { "retry-after": "4" },
        },
      },
    ]);
    const response = await post(hello);

    expect(response.status).toBe(529);
    expect(response.headers.get("retry-after")).toBe("4");
    expect(await response.json()).toMatchObject({
      error: { type: "overloaded_error", message: "Overloaded" },
    });
  });

  it.each([
    {
      rule: "roles alternate",
      messages: [
        { role: "user", content: "a" },
        { role: "user", content: "b" },
      ],
      message: 'roles must alternate between "user" and "assistant"',
    },
    {
      rule: "system is not a message role",
      messages: [{ role: "system", content: "be brief" }],
      message: 'Unexpected role "system"',
    },
    {
      rule: "content is not empty",
      messages: [
        { role: "user", content: "a" },
        { role: "assistant", content: [] },
        { role: "user", content: "b" },
      ],
      message: "messages.1: all messages must have non-empty content",
    },
    {
      rule: "tool results come first",
      messages: [
        { role: "user", content: "a" },
        { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "f", input: {} }] },
        {
          role: "user",
          content: [
            { type: "text", text: "here" },
            { type: "tool_result", tool_use_id: "toolu_1", content: "ok" },
          ],
        },
      ],
      message: "`tool_result` blocks must come first",
    },
    {
      rule: "tool results answer the previous message",
      messages: [
        { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "ok" }] },
      ],
      message: "unexpected `tool_use_id` found in `tool_result` blocks: toolu_9",
    },
    {
      rule: "tool ids use the allowed characters",
      messages: [
        { role: "user", content: "a" },
        { role: "assistant", content: [{ type: "tool_use", id: "call.1", name: "f", input: {} }] },
        { role: "user", content: [{ type: "tool_result", tool_use_id: "call.1", content: "ok" }] },
      ],
      message: "messages.1.content.0.tool_use.id: String should match pattern",
    },
  ])("rejects a body that breaks the rule: $rule", async ({ messages, message }) => {
    const { post } = await fakeWith([{ text: "never sent" }]);
    const response = await post({ ...hello, messages });

    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe("invalid_request_error");
    expect(body.error.message).toContain(message);
  });
});
