import type { ServerResponse } from "node:http";
import {
  isScriptedError,
  type ScriptedReply,
  type ScriptItem,
  scriptCursor,
} from "./fake-script.js";
import { type FakeServer, sendJson, startFakeServer } from "./fake-server.js";
import { findOpenAIRequestProblem } from "./openai-request-rules.js";
import { startEventStream, writeEvent } from "./server-sent-events.js";
import { splitChunks } from "./split-chunks.js";

/** The key fake-openai accepts unless told otherwise. */
export const FAKE_OPENAI_KEY = "sk-fake-openai-0123456789";

/** Options for `startFakeOpenAI`. */
export interface FakeOpenAIOptions {
  /**
   * The only Bearer token accepted. `null` accepts any request, with or without a key, as a
   * local server (Ollama, llama.cpp) does. Default `FAKE_OPENAI_KEY`.
   */
  readonly apiKey?: string | null;
  /** How many chunks each text or argument string is cut into. Default 3. */
  readonly chunks?: number;
}

/**
 * The body of an OpenAI error response.
 *
 * @example
 * ```ts
 * openaiError("Rate limit reached", "requests", "rate_limit_exceeded"); // for a scripted 429
 * ```
 */
export function openaiError(
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): unknown {
  return { error: { message, type, param, code } };
}

function usageOf(reply: ScriptedReply): unknown {
  const prompt = reply.usage?.inputTokens ?? 25;
  const completion = reply.usage?.outputTokens ?? 10;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

function finishReason(reply: ScriptedReply): string {
  return (reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop";
}

function completionBody(reply: ScriptedReply, model: string, id: string): unknown {
  const calls = reply.toolCalls ?? [];
  return {
    id,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.text ?? null,
          refusal: null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call) => ({
                  id: call.id,
                  type: "function",
                  function: { name: call.name, arguments: call.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finishReason(reply),
      },
    ],
    usage: usageOf(reply),
  };
}

function streamCompletion(
  res: ServerResponse,
  reply: ScriptedReply,
  model: string,
  id: string,
  options: { chunks: number; includeUsage: boolean },
): void {
  startEventStream(res, { "x-request-id": `req_${id}` });
  const created = Math.floor(Date.now() / 1000);
  // With include_usage every chunk carries `usage: null` until the final usage-only chunk.
  const chunk = (choice: unknown) =>
    writeEvent(res, {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [choice],
      ...(options.includeUsage ? { usage: null } : {}),
    });
  const delta = (fields: Record<string, unknown>) =>
    chunk({ index: 0, delta: fields, logprobs: null, finish_reason: null });

  const calls = reply.toolCalls ?? [];
  delta({ role: "assistant", content: calls.length > 0 && !reply.text ? null : "", refusal: null });
  for (const text of splitChunks(reply.text ?? "", options.chunks)) delta({ content: text });
  for (const [index, call] of calls.entries()) {
    delta({
      tool_calls: [
        { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
      ],
    });
    for (const piece of splitChunks(call.arguments, options.chunks)) {
      delta({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  if (reply.streamError !== undefined) {
    writeEvent(res, reply.streamError);
    res.end();
    return;
  }
  chunk({ index: 0, delta: {}, logprobs: null, finish_reason: finishReason(reply) });
  if (options.includeUsage) {
    writeEvent(res, {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [],
      usage: usageOf(reply),
    });
  }
  writeEvent(res, "[DONE]");
  res.end();
}

/**
 * Start a fake OpenAI Chat Completions API (`POST /v1/chat/completions`) on 127.0.0.1. It checks
 * the Bearer key, validates the body like the live API (every assistant `tool_calls` id answered
 * by a `role: "tool"` message before anything else), then answers with the next script item: as
 * JSON, or as `data:` chunks ending in `[DONE]` when `stream: true`, with a usage chunk when
 * `stream_options.include_usage`. Rejected requests do not use up a script item.
 *
 * @example
 * ```ts
 * const fake = await startFakeOpenAI([{ toolCalls: [{ id: "call_1", name: "f", arguments: '{"a":1}' }] }]);
 * const model = await resolveModel("openai:gpt-4o", { baseUrl: `${fake.url}/v1`, apiKey: FAKE_OPENAI_KEY });
 * await fake.close();
 * ```
 */
export function startFakeOpenAI(
  script: readonly ScriptItem[],
  options: FakeOpenAIOptions = {},
): Promise<FakeServer> {
  const apiKey = options.apiKey === undefined ? FAKE_OPENAI_KEY : options.apiKey;
  const chunks = options.chunks ?? 3;
  const next = scriptCursor(script);
  let served = 0;
  return startFakeServer((request, res) => {
    if (request.method !== "POST" || request.path !== "/v1/chat/completions") {
      return sendJson(
        res,
        404,
        openaiError(`Invalid URL (${request.method} ${request.path})`, "invalid_request_error"),
      );
    }
    if (apiKey !== null) {
      const auth = request.headers.authorization;
      if (auth === undefined) {
        return sendJson(
          res,
          401,
          openaiError(
            "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
            "invalid_request_error",
          ),
        );
      }
      if (auth !== `Bearer ${apiKey}`) {
        const given = auth.replace(/^Bearer\s+/, "");
        return sendJson(
          res,
          401,
          openaiError(
            `Incorrect API key provided: ${given.slice(0, 3)}****${given.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
            "invalid_request_error",
            "invalid_api_key",
          ),
        );
      }
    }
    const problem = findOpenAIRequestProblem(request.body);
    if (problem) {
      return sendJson(
        res,
        400,
        openaiError(problem.message, "invalid_request_error", null, problem.param),
      );
    }
    const item = next();
    if (item === undefined) {
      return sendJson(
        res,
        500,
        openaiError("fake-openai: the script has no response left", "server_error"),
      );
    }
    if (isScriptedError(item))
      return sendJson(res, item.error.status, item.error.body, item.error.headers);
    served += 1;
    const id = `chatcmpl-fake${String(served).padStart(4, "0")}`;
    const body = request.body as {
      model: string;
      stream?: boolean;
      stream_options?: { include_usage?: boolean };
    };
    if (body.stream === true) {
      const includeUsage = body.stream_options?.include_usage === true;
      return streamCompletion(res, item, body.model, id, { chunks, includeUsage });
    }
    return sendJson(res, 200, completionBody(item, body.model, id), {
      "x-request-id": `req_${id}`,
    });
  });
}
