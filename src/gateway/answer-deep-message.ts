import { randomUUID } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Checkpoint } from "../checkpoint/create-checkpoint.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type { CallerClaims } from "../policy/policy.js";
import { jsonDepth, stringifyDeep } from "./deep-json.js";

/** Arguments nested deeper than this skip the MCP SDK (whose parsing recurses) and go as text. */
const ARGUMENTS_DEPTH = 64;
/** Any other message nested deeper than this is refused before the SDK sees it. */
const MESSAGE_DEPTH = 256;

/** What the gateway does with a POST body nested too deeply for the SDK. */
export interface DeepMessageContext {
  readonly checkpoint: Pick<Checkpoint, "dispatch">;
  readonly sessionId: string;
  readonly principal: string;
  readonly caller?: CallerClaims;
  readonly answer: (result: ToolResult) => CallToolResult;
}

/**
 * The reply to a POST body too deep for the MCP SDK, or undefined when the SDK can take it. A
 * `tools/call` with deep arguments is dispatched here with its arguments as text, so the
 * checkpoint refuses it as unreadable and records it like any other call (as `docket run` does);
 * any other deep message gets a JSON-RPC error. Never a stack overflow.
 *
 * @example
 * ```ts
 * import type { ServerResponse } from "node:http";
 * import type { Checkpoint } from "../checkpoint/create-checkpoint.js";
 * import { callToolAnswer } from "../mcp/gateway-server.js";
 * declare const body: unknown;
 * declare const checkpoint: Checkpoint;
 * declare const res: ServerResponse;
 * const reply = await answerDeepMessage(body, { checkpoint, sessionId: "s1", principal: "alice", answer: callToolAnswer });
 * if (reply !== undefined) res.end(JSON.stringify(reply));
 * ```
 */
export async function answerDeepMessage(
  body: unknown,
  { checkpoint, sessionId, principal, caller, answer }: DeepMessageContext,
): Promise<Record<string, unknown> | undefined> {
  if (jsonDepth(body, ARGUMENTS_DEPTH) <= ARGUMENTS_DEPTH) return undefined;
  const message = (body ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
  const id = typeof message.id === "string" || typeof message.id === "number" ? message.id : null;
  const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
  const isCall = !Array.isArray(body) && message.method === "tools/call" && id !== null;
  if (isCall && typeof params.name === "string") {
    const result = await checkpoint.dispatch(
      {
        id: `mcp-${randomUUID()}`,
        name: params.name,
        arguments: stringifyDeep(params.arguments ?? {}),
      },
      { sessionId, principal, ...(caller === undefined ? {} : { caller }) },
    );
    return { jsonrpc: "2.0", id, result: answer(result) };
  }
  if (jsonDepth(body, MESSAGE_DEPTH) <= MESSAGE_DEPTH) return undefined;
  return {
    jsonrpc: "2.0",
    id,
    error: { code: -32600, message: `Invalid request: nested deeper than ${MESSAGE_DEPTH} levels` },
  };
}
