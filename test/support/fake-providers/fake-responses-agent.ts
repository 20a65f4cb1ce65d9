import { type FakeServer, sendJson, startFakeServer } from "./fake-server.js";
import { startEventStream, writeEvent } from "./server-sent-events.js";

interface Body {
  readonly input?: readonly { readonly type?: string; readonly output?: unknown }[];
}

/** A call to any function, with its arguments. */
export interface ResponsesCall {
  readonly name: string;
  readonly arguments: object;
}

/**
 * One call the fake asks for: a command for `exec_command`, a call, or a call made from the
 * outputs of the calls so far (a session id a tool printed).
 */
export type ResponsesStep =
  | string
  | ResponsesCall
  | ((outputs: readonly string[]) => ResponsesCall);

/**
 * A fake OpenAI Responses API (`POST /v1/responses`, streamed) for the real Codex CLI: it asks
 * for `exec_command` with each of `commands` in turn (or the call a step names), one per reply,
 * counting the `function_call_output` items the conversation already holds; then it says "done.".
 *
 * @example
 * ```ts
 * const fake = await startFakeResponsesAgent(["ls"]); // codex: base_url = `${fake.url}/v1`
 * ```
 */
export function startFakeResponsesAgent(commands: readonly ResponsesStep[]): Promise<FakeServer> {
  let served = 0;
  return startFakeServer((request, res) => {
    if (request.method !== "POST" || !request.path.startsWith("/v1/responses")) {
      return sendJson(res, 404, { error: { message: "not found" } });
    }
    served += 1;
    const body = (request.body ?? {}) as Body;
    const outputs = (body.input ?? [])
      .filter((item) => item.type === "function_call_output")
      .map((item) => (typeof item.output === "string" ? item.output : JSON.stringify(item.output)));
    const answered = outputs.length;
    const step = commands[answered];
    const command = typeof step === "function" ? step(outputs) : step;
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
            ...(typeof command === "string"
              ? { name: "exec_command", arguments: JSON.stringify({ cmd: command }) }
              : { name: command.name, arguments: JSON.stringify(command.arguments) }),
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
