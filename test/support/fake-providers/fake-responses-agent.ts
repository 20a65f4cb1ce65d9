import { type FakeServer, sendJson, startFakeServer } from "./fake-server.js";
import { startEventStream, writeEvent } from "./server-sent-events.js";

interface Body {
  readonly input?: readonly { readonly type?: string }[];
}

/**
 * A fake OpenAI Responses API (`POST /v1/responses`, streamed) for the real Codex CLI: it asks
 * for `exec_command` with each of `commands` in turn, one per reply, counting the
 * `function_call_output` items the conversation already holds; then it says "done.".
 *
 * @example
 * ```ts
 * const fake = await startFakeResponsesAgent(["ls"]); // codex: base_url = `${fake.url}/v1`
 * ```
 */
export function startFakeResponsesAgent(commands: readonly string[]): Promise<FakeServer> {
  let served = 0;
  return startFakeServer((request, res) => {
    if (request.method !== "POST" || !request.path.startsWith("/v1/responses")) {
      return sendJson(res, 404, { error: { message: "not found" } });
    }
    served += 1;
    const body = (request.body ?? {}) as Body;
    const answered = (body.input ?? []).filter(
      (item) => item.type === "function_call_output",
    ).length;
    const command = commands[answered];
    const item =
      command === undefined
        ? {
            type: "message",
            role: "assistant",
            id: `msg_${served}`,
            content: [{ type: "output_text", text: "done." }],
          }
        : {
            type: "function_call",
            id: `fc_${served}`,
            call_id: `call_${answered}`,
            name: "exec_command",
            arguments: JSON.stringify({ cmd: command }),
          };
    startEventStream(res);
    const send = (type: string, data: object) => writeEvent(res, { type, ...data }, type);
    send("response.created", { response: { id: `resp_${served}` } });
    send("response.output_item.done", { output_index: 0, item });
    send("response.completed", {
      response: {
        id: `resp_${served}`,
        usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      },
    });
    res.end();
  });
}
