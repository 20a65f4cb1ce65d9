import { messageBody, streamMessage } from "./fake-anthropic.js";
import type { ScriptedReply } from "./fake-script.js";
import { type FakeServer, sendJson, startFakeServer } from "./fake-server.js";

interface Block {
  readonly type?: string;
}
interface Body {
  readonly model?: string;
  readonly stream?: boolean;
  readonly tools?: readonly { readonly name?: string }[];
  readonly messages?: readonly { readonly content?: string | readonly Block[] }[];
}

/**
 * A fake Anthropic Messages API for a real coding agent (Claude Code), which sends requests of its
 * own beside the conversation (titles, summaries): a request that offers the tool `toolName`
 * gets the step whose index is the number of tool results the conversation already holds (then
 * "done."); any other request gets a short text. Any key is accepted.
 *
 * @example
 * ```ts
 * const fake = await startFakeAnthropicAgent("Bash", [{ toolCalls: [{ id: "toolu_1", name: "Bash", arguments: '{"command":"ls"}' }] }]);
 * ```
 */
export function startFakeAnthropicAgent(
  toolName: string,
  steps: readonly ScriptedReply[],
): Promise<FakeServer> {
  let served = 0;
  return startFakeServer((request, res) => {
    if (request.method !== "POST" || !request.path.startsWith("/v1/messages")) {
      return sendJson(res, 404, { type: "error", error: { type: "not_found_error" } });
    }
    const body = (request.body ?? {}) as Body;
    if (request.path.startsWith("/v1/messages/count_tokens")) {
      return sendJson(res, 200, { input_tokens: 10 });
    }
    const offersTool = (body.tools ?? []).some((tool) => tool.name === toolName);
    let reply: ScriptedReply = { text: "ok." };
    if (offersTool) {
      const results = (body.messages ?? [])
        .flatMap((message) => (Array.isArray(message.content) ? message.content : []))
        .filter((block: Block) => block.type === "tool_result").length;
      reply = steps[results] ?? { text: "done." };
    }
    served += 1;
    const id = `msg_fake_${served}`;
    const model = body.model ?? "claude-fake";
    if (body.stream === true) return streamMessage(res, reply, model, id, 2);
    return sendJson(res, 200, messageBody(reply, model, id));
  });
}
