import type { ServerResponse } from "node:http";
import { findAnthropicRequestProblem } from "./anthropic-request-rules.js";
import {
  isScriptedError,
  type ScriptedReply,
  type ScriptItem,
  scriptCursor,
} from "./fake-script.js";
import { type FakeServer, sendJson, startFakeServer } from "./fake-server.js";
import { startEventStream, writeEvent } from "./server-sent-events.js";
import { splitChunks } from "./split-chunks.js";

/** The key fake-anthropic accepts unless told otherwise. */
export const FAKE_ANTHROPIC_KEY = "sk-ant-fake-0123456789";

/** Options for `startFakeAnthropic`. */
export interface FakeAnthropicOptions {
  /** The only `x-api-key` accepted. Default `FAKE_ANTHROPIC_KEY`. */
  readonly apiKey?: string;
  /** How many `text_delta` / `input_json_delta` events each text or argument string is cut into. Default 3. */
  readonly chunks?: number;
}

/**
 * The body of an Anthropic error response.
 *
 * @example
 * ```ts
 * anthropicError("overloaded_error", "Overloaded"); // for a scripted 529
 * ```
 */
export function anthropicError(type: string, message: string): unknown {
  return { type: "error", error: { type, message }, request_id: "req_fake_error" };
}

type Usage = { input_tokens: number; output_tokens: number };

function usageOf(reply: ScriptedReply): Usage {
  return {
    input_tokens: reply.usage?.inputTokens ?? 25,
    output_tokens: reply.usage?.outputTokens ?? 10,
  };
}

function stopReason(reply: ScriptedReply): string {
  return (reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn";
}

/**
 * A non-streaming Messages response: tool input is a parsed object, never text.
 *
 * @example
 * ```ts
 * sendJson(res, 200, messageBody({ text: "hi" }, "claude-x", "msg_1"));
 * ```
 */
export function messageBody(reply: ScriptedReply, model: string, id: string): unknown {
  const content: unknown[] = reply.text ? [{ type: "text", text: reply.text }] : [];
  for (const call of reply.toolCalls ?? []) {
    const input: unknown = JSON.parse(call.arguments);
    content.push({ type: "tool_use", id: call.id, name: call.name, input });
  }
  return {
    id,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage: usageOf(reply),
  };
}

/**
 * A Messages response as server-sent events, as the live API streams it.
 *
 * @example
 * ```ts
 * streamMessage(res, { text: "hi" }, "claude-x", "msg_1", 3);
 * ```
 */
export function streamMessage(
  res: ServerResponse,
  reply: ScriptedReply,
  model: string,
  id: string,
  chunks: number,
): void {
  const usage = usageOf(reply);
  startEventStream(res, { "request-id": `req_${id}` });
  const send = (data: { type: string; [field: string]: unknown }) =>
    writeEvent(res, data, data.type);
  send({
    type: "message_start",
    message: {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input_tokens, output_tokens: 1 },
    },
  });
  send({ type: "ping" });
  let index = 0;
  if (reply.text) {
    send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (const text of splitChunks(reply.text, chunks)) {
      send({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    }
    send({ type: "content_block_stop", index });
    index += 1;
  }
  for (const call of reply.toolCalls ?? []) {
    send({
      type: "content_block_start",
      index,
      content_block: { type: "tool_use", id: call.id, name: call.name, input: {} },
    });
    // The live API opens each tool block with an empty partial_json before the real pieces.
    const pieces = ["", ...splitChunks(call.arguments, chunks)];
    for (const partial_json of pieces) {
      send({
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json },
      });
    }
    send({ type: "content_block_stop", index });
    send({ type: "ping" });
    index += 1;
  }
  if (reply.streamError !== undefined) {
    writeEvent(res, reply.streamError, "error");
    res.end();
    return;
  }
  send({
    type: "message_delta",
    delta: { stop_reason: stopReason(reply), stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  send({ type: "message_stop" });
  res.end();
}

function hasUnparseableInput(reply: ScriptedReply): boolean {
  return (reply.toolCalls ?? []).some((call) => {
    try {
      const value: unknown = JSON.parse(call.arguments);
      return typeof value !== "object" || value === null || Array.isArray(value);
    } catch {
      return true;
    }
  });
}

/**
 * Start a fake Anthropic Messages API (`POST /v1/messages`) on 127.0.0.1. It checks `x-api-key`
 * and `anthropic-version`, validates the body like the live API (roles, non-empty content, every
 * `tool_use` answered by a `tool_result` in the next user message, in order), then answers with
 * the next script item: as JSON, or as server-sent events when the body has `stream: true`.
 * Requests rejected by auth or validation do not use up a script item.
 *
 * Point `@ai-sdk/anthropic` at `${url}/v1`: the package appends only `/messages`.
 *
 * @example
 * ```ts
 * const fake = await startFakeAnthropic([{ text: "Hi", toolCalls: [{ id: "toolu_1", name: "f", arguments: "{}" }] }]);
 * const model = await resolveModel("anthropic:claude-sonnet-4-5", { baseUrl: `${fake.url}/v1`, apiKey: FAKE_ANTHROPIC_KEY });
 * await fake.close();
 * ```
 */
export function startFakeAnthropic(
  script: readonly ScriptItem[],
  options: FakeAnthropicOptions = {},
): Promise<FakeServer> {
  const apiKey = options.apiKey ?? FAKE_ANTHROPIC_KEY;
  const chunks = options.chunks ?? 3;
  const next = scriptCursor(script);
  let served = 0;
  return startFakeServer((request, res) => {
    if (request.method !== "POST" || request.path !== "/v1/messages") {
      return sendJson(res, 404, anthropicError("not_found_error", `Not Found: ${request.path}`));
    }
    const key = request.headers["x-api-key"];
    if (key === undefined) {
      return sendJson(
        res,
        401,
        anthropicError("authentication_error", "x-api-key header is required"),
      );
    }
    if (key !== apiKey)
      return sendJson(res, 401, anthropicError("authentication_error", "invalid x-api-key"));
    if (request.headers["anthropic-version"] === undefined) {
      return sendJson(
        res,
        400,
        anthropicError("invalid_request_error", "anthropic-version: header is required"),
      );
    }
    const problem = findAnthropicRequestProblem(request.body);
    if (problem) return sendJson(res, 400, anthropicError("invalid_request_error", problem));

    const item = next();
    if (item === undefined) {
      return sendJson(
        res,
        500,
        anthropicError("api_error", "fake-anthropic: the script has no response left"),
      );
    }
    if (isScriptedError(item))
      return sendJson(res, item.error.status, item.error.body, item.error.headers);
    served += 1;
    const id = `msg_fake${String(served).padStart(4, "0")}`;
    const body = request.body as { model: string; stream?: boolean };
    if (body.stream === true) return streamMessage(res, item, body.model, id, chunks);
    if (hasUnparseableInput(item)) {
      // Non-streaming responses carry tool input as a JSON object; raw malformed text cannot be expressed.
      return sendJson(
        res,
        500,
        anthropicError(
          "api_error",
          "fake-anthropic: non-streaming tool input must be a JSON object",
        ),
      );
    }
    return sendJson(res, 200, messageBody(item, body.model, id), { "request-id": `req_${id}` });
  });
}
