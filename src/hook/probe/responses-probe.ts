import type { ServerResponse } from "node:http";
import {
  contentText,
  noteResult,
  type ProbeProtocol,
  sendJson,
  writeEvent,
} from "./probe-server.js";

interface Item {
  readonly type?: string;
  readonly call_id?: string;
  readonly output?: unknown;
}
interface ResponsesBody {
  readonly input?: readonly Item[];
  readonly tools?: readonly { readonly name?: string }[];
}

const SHELL = "exec_command";

function send(res: ServerResponse, served: number, item: object): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  const event = (type: string, data: object) => writeEvent(res, { type, ...data }, type);
  const id = `resp_docket_probe_${served}`;
  event("response.created", { response: { id } });
  event("response.output_item.done", { output_index: 0, item });
  event("response.completed", {
    response: { id, usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } },
  });
  res.end();
}

/**
 * The OpenAI Responses protocol (Codex CLI, `wire_api = "responses"`): a request that offers
 * `exec_command` gets the next call as a `function_call` with the probe call's id as its
 * `call_id` (the number of `function_call_output` items it holds says which), then "done.";
 * always streamed, as Codex asks. Codex reports a command's exit code in its output text, so a
 * result that says it exited non-zero, or that a hook blocked it, is an error.
 *
 * @example
 * ```ts
 * import { startProbeServer } from "./probe-server.js";
 * const server = await startProbeServer(responsesProbe, [{ id: "call_1", command: "ls" }]);
 * // codex exec -c model_providers.probe.base_url="server.url/v1" …
 * ```
 */
export const responsesProbe: ProbeProtocol = ({ path, body }, res, { calls, seen }) => {
  if (!path.endsWith("/responses")) return sendJson(res, 404, { error: { message: "not found" } });
  const request = (body ?? {}) as ResponsesBody;
  const outputs = (request.input ?? []).filter((item) => item.type === "function_call_output");
  for (const output of outputs) {
    const text =
      output.output === undefined ||
      (typeof output.output === "object" && !Array.isArray(output.output))
        ? JSON.stringify(output.output ?? "")
        : contentText(output.output);
    noteResult(seen, {
      callId: String(output.call_id),
      isError: /exit(ed with)? code:? [1-9]|blocked|denied/i.test(text),
      text,
    });
  }
  const offersShell = (request.tools ?? []).some((tool) => tool.name === SHELL);
  const call = offersShell ? calls[outputs.length] : undefined;
  const item = call
    ? {
        type: "function_call",
        id: `fc_${call.id}`,
        call_id: call.id,
        name: SHELL,
        arguments: JSON.stringify({ cmd: call.command }),
      }
    : {
        type: "message",
        role: "assistant",
        id: `msg_docket_probe_${outputs.length}`,
        content: [{ type: "output_text", text: "done." }],
      };
  send(res, outputs.length, item);
};
