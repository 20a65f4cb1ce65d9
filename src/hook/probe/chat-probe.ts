import { contentText, noteResult, type ProbeProtocol, sendJson } from "./probe-server.js";

interface Message {
  readonly role?: string;
  readonly tool_call_id?: string;
  readonly content?: unknown;
}
interface ChatBody {
  readonly tools?: readonly { readonly function?: { readonly name?: string } }[];
  readonly messages?: readonly Message[];
}

const SHELL = "bash";

/**
 * The OpenAI Chat Completions protocol (opencode, through an `@ai-sdk/openai-compatible`
 * provider): a request that offers `bash` gets the next call as a streamed `tool_calls` delta
 * with the probe call's id (the number of `tool` messages it holds says which), then "done.";
 * any other request (a title) gets "done.". A result that is a refusal (docket's words, or an
 * error the plugin threw) is an error.
 *
 * @example
 * ```ts
 * import { startProbeServer } from "./probe-server.js";
 * const server = await startProbeServer(chatProbe, [{ id: "call_1", command: "ls" }]);
 * // a provider with options.baseURL = `${server.url}/v1`
 * ```
 */
export const chatProbe: ProbeProtocol = ({ path, body }, res, { calls, seen }) => {
  if (!path.endsWith("/chat/completions")) {
    return sendJson(res, 404, { error: { message: "not found" } });
  }
  const request = (body ?? {}) as ChatBody;
  const results = (request.messages ?? []).filter((message) => message.role === "tool");
  for (const result of results) {
    const text = contentText(result.content);
    noteResult(seen, {
      callId: String(result.tool_call_id),
      isError: /^(error: )?docket[: ]/i.test(text.trim()),
      text,
    });
  }
  const offersShell = (request.tools ?? []).some((tool) => tool.function?.name === SHELL);
  const call = offersShell ? calls[results.length] : undefined;
  const delta = call
    ? {
        role: "assistant",
        tool_calls: [
          {
            index: 0,
            id: call.id,
            type: "function",
            function: {
              name: SHELL,
              arguments: JSON.stringify({ command: call.command, description: "docket hook test" }),
            },
          },
        ],
      }
    : { role: "assistant", content: "done." };
  const chunk = (choice: object, extra: object = {}) =>
    `data: ${JSON.stringify({ id: "chat_docket_probe", object: "chat.completion.chunk", created: 0, model: "docket-probe", choices: [{ index: 0, ...choice }], ...extra })}\n\n`;
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  res.write(chunk({ delta, finish_reason: null }));
  res.write(
    chunk(
      { delta: {}, finish_reason: call ? "tool_calls" : "stop" },
      { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
    ),
  );
  res.end("data: [DONE]\n\n");
};
