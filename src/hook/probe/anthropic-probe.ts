import type { ServerResponse } from "node:http";
import {
  contentText,
  noteResult,
  type ProbeCall,
  type ProbeProtocol,
  sendJson,
  writeEvent,
} from "./probe-server.js";

interface Block {
  readonly type?: string;
  readonly tool_use_id?: string;
  readonly is_error?: boolean;
  readonly content?: unknown;
}
interface MessagesBody {
  readonly model?: string;
  readonly stream?: boolean;
  readonly tools?: readonly { readonly name?: string }[];
  readonly messages?: readonly { readonly content?: unknown }[];
}

/**
 * The Anthropic Messages protocol (Claude Code): a request that offers the `Bash` tool gets the
 * next call as a `tool_use` (the number of `tool_result` blocks it holds says which), then
 * "done."; the host's other requests (titles, summaries) get a short text; token counts a fixed
 * number. Streamed when the request asks for a stream, as the host does.
 *
 * @example
 * ```ts
 * import { startProbeServer } from "./probe-server.js";
 * const server = await startProbeServer(anthropicProbe, [{ id: "toolu_1", command: "ls" }]);
 * // ANTHROPIC_BASE_URL=server.url claude -p …
 * ```
 */
export const anthropicProbe: ProbeProtocol = ({ path, body }, res, { calls, seen }) => {
  if (!path.startsWith("/v1/messages")) return sendJson(res, 404, { type: "error" });
  if (path.startsWith("/v1/messages/count_tokens")) return sendJson(res, 200, { input_tokens: 10 });
  const request = (body ?? {}) as MessagesBody;
  const blocks = (request.messages ?? []).flatMap((message) =>
    Array.isArray(message.content) ? (message.content as Block[]) : [],
  );
  const results = blocks.filter((block) => block.type === "tool_result");
  for (const block of results) {
    noteResult(seen, {
      callId: String(block.tool_use_id),
      isError: block.is_error === true,
      text: contentText(block.content),
    });
  }
  const offersShell = (request.tools ?? []).some((tool) => tool.name === "Bash");
  const call = offersShell ? calls[results.length] : undefined;
  const model = request.model ?? "docket-probe";
  if (request.stream === true) return stream(res, model, call);
  const content = call
    ? [{ type: "tool_use", id: call.id, name: "Bash", input: inputOf(call) }]
    : [{ type: "text", text: offersShell ? "done." : "ok." }];
  sendJson(res, 200, {
    id: `msg_probe_${seen.length}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: call ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  });
};

const inputOf = (call: ProbeCall) => ({ command: call.command, description: "docket hook test" });

function stream(res: ServerResponse, model: string, call: ProbeCall | undefined): void {
  res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
  const send = (data: { type: string; [field: string]: unknown }) =>
    writeEvent(res, data, data.type);
  send({
    type: "message_start",
    message: {
      id: `msg_probe_${Date.now()}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 },
    },
  });
  if (call) {
    send({
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: call.id, name: "Bash", input: {} },
    });
    send({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(inputOf(call)) },
    });
  } else {
    send({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    send({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "done." } });
  }
  send({ type: "content_block_stop", index: 0 });
  send({
    type: "message_delta",
    delta: { stop_reason: call ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  send({ type: "message_stop" });
  res.end();
}
