import { type FakeServer, sendJson, startFakeServer } from "./fake-server.js";
import { startEventStream } from "./server-sent-events.js";

interface Body {
  readonly tools?: readonly { readonly function?: { readonly name?: string } }[];
  readonly messages?: readonly { readonly role?: string }[];
}

/**
 * A fake OpenAI Chat Completions API (`POST /v1/chat/completions`, streamed) for a real host that
 * speaks it (opencode, through a provider with `@ai-sdk/openai-compatible`): a request that
 * offers `tool` gets a call of it with each of `calls` in turn (the number of `tool` messages the
 * conversation holds says which), then "done."; any other request (a title) gets "done.".
 *
 * @example
 * ```ts
 * const fake = await startFakeChatAgent("bash", [{ command: "ls", description: "list" }]);
 * // opencode: provider options.baseURL = `${fake.url}/v1`
 * ```
 */
export function startFakeChatAgent(tool: string, calls: readonly object[]): Promise<FakeServer> {
  return startFakeServer((request, res) => {
    if (request.method !== "POST" || !request.path.endsWith("/chat/completions")) {
      return sendJson(res, 404, { error: { message: "not found" } });
    }
    const body = (request.body ?? {}) as Body;
    const offers = (body.tools ?? []).some((t) => t.function?.name === tool);
    const answered = (body.messages ?? []).filter((m) => m.role === "tool").length;
    const args = offers ? calls[answered] : undefined;
    const delta = args
      ? {
          role: "assistant",
          tool_calls: [
            {
              index: 0,
              id: `call_${answered}`,
              type: "function",
              function: { name: tool, arguments: JSON.stringify(args) },
            },
          ],
        }
      : { role: "assistant", content: "done." };
    const chunk = (choice: object, extra: object = {}) =>
      `data: ${JSON.stringify({ id: `chat_${answered}`, object: "chat.completion.chunk", created: 1, model: "fake", choices: [{ index: 0, ...choice }], ...extra })}\n\n`;
    startEventStream(res);
    res.write(chunk({ delta, finish_reason: null }));
    res.write(
      chunk(
        { delta: {}, finish_reason: args ? "tool_calls" : "stop" },
        { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } },
      ),
    );
    res.end("data: [DONE]\n\n");
  });
}
