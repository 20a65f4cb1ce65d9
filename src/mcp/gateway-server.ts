import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import type { Checkpoint } from "../checkpoint/create-checkpoint.js";
import { renderResult } from "../checkpoint/render-result.js";
import type { ToolResult } from "../checkpoint/tool-result.js";
import type { CallerClaims } from "../policy/policy.js";
import { contextFromTraceparent } from "../telemetry/trace-parent.js";
import type { Tool } from "../tool/tool.js";
import { argumentsText } from "./arguments-text.js";
import { DOCKET_IMPLEMENTATION } from "./implementation-info.js";

/** What the gateway fronts. */
export interface GatewayServerOptions {
  /** Every `tools/call` is one `dispatch` on it: the gateway never calls a tool itself. */
  readonly checkpoint: Pick<Checkpoint, "dispatch">;
  /** The current menu, read on every `tools/list`. */
  readonly tools: () => readonly Tool[];
  /** The session the calls belong to (the audit trail groups by it). */
  readonly sessionId?: string;
  /** Who is asking, as the checkpoint's principal. Default: the checkpoint's own. */
  readonly principal?: string;
  /** What the principal's token said (client, scopes, groups): CEL `caller` in rules. */
  readonly caller?: CallerClaims;
  /**
   * While a call waits (for an approver, or an upstream server), a progress notification goes to
   * clients that asked for progress this often, so that a client which resets its timeout on
   * progress keeps waiting. Default 10 s; 0 turns it off.
   */
  readonly heartbeatMs?: number;
}

function menuEntry(tool: Tool): McpTool {
  return {
    name: tool.name,
    description: tool.description,
    // Passed through verbatim: the schema the checkpoint validates is the one clients see.
    inputSchema: tool.inputSchema as McpTool["inputSchema"],
    annotations: { readOnlyHint: !tool.writes, openWorldHint: tool.openWorld },
  };
}

/**
 * The MCP answer to a `tools/call` from the checkpoint's result.
 *
 * @example
 * ```ts
 * declare const checkpoint: import("../checkpoint/create-checkpoint.js").Checkpoint;
 * declare const call: import("../checkpoint/tool-result.js").ToolCall;
 * declare const ctx: import("../checkpoint/checkpoint-options.js").DispatchContext;
 * const answer = callToolAnswer(await checkpoint.dispatch(call, ctx));
 * ```
 */
export function callToolAnswer(result: ToolResult): CallToolResult {
  const meta = {
    "docket/call": {
      id: result.callId,
      status: result.status,
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      ...(result.status === "awaiting_approval" ? { approvalId: result.approvalId } : {}),
      // Provenance, also in words: the output of an open-world tool is in the data envelope.
      ...(result.status === "ok" && result.source !== undefined ? { source: result.source } : {}),
    },
  };
  if (result.status === "ok") {
    return {
      // Untrusted text reaches the client's model as it reaches docket's own: in the envelope,
      // once (an upstream docket's envelope is not wrapped again).
      content: [{ type: "text", text: renderResult(result) }],
      _meta: meta,
    };
  }
  // A failure the tool reported (a command's exit code) keeps its output under the words.
  return { isError: true, content: [{ type: "text", text: renderResult(result) }], _meta: meta };
}

/**
 * An MCP server (the SDK's low-level `Server`, since the menu changes and schemas pass through
 * verbatim) whose `tools/list` is the checkpoint's menu and whose every `tools/call` is one
 * `checkpoint.dispatch`. The client's cancellation aborts the dispatch: a call the client gave
 * up on never starts later. Connect it to one transport; call `sendToolListChanged()` on it
 * when the menu changes.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * import type { Checkpoint } from "../checkpoint/create-checkpoint.js";
 * declare const checkpoint: Checkpoint;
 * const server = createGatewayServer({ checkpoint, tools: () => checkpoint.tools });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createGatewayServer({
  checkpoint,
  tools,
  sessionId,
  principal,
  caller,
  heartbeatMs = 10_000,
}: GatewayServerOptions): Server {
  const server = new Server(
    { ...DOCKET_IMPLEMENTATION, name: "docket-gateway" },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools().map(menuEntry) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const progressToken = request.params._meta?.progressToken;
    // A client that traces its own work passes its span; the call's span continues that trace.
    const traceContext = contextFromTraceparent(request.params._meta?.traceparent);
    let beats = 0;
    const heartbeat =
      progressToken === undefined || heartbeatMs <= 0
        ? undefined
        : setInterval(() => {
            beats += 1;
            void extra
              .sendNotification({
                method: "notifications/progress",
                params: { progressToken, progress: beats, message: "docket: still working" },
              })
              .catch(() => {});
          }, heartbeatMs);
    try {
      const result = await checkpoint.dispatch(
        {
          // Unique per request: the store runs a call id at most once, ever.
          id: `mcp-${randomUUID()}`,
          name: request.params.name,
          arguments: argumentsText(request.params.arguments),
        },
        {
          signal: extra.signal,
          ...(sessionId === undefined ? {} : { sessionId }),
          ...(principal === undefined ? {} : { principal }),
          ...(caller === undefined ? {} : { caller }),
          ...(traceContext === undefined ? {} : { traceContext }),
        },
      );
      return callToolAnswer(result);
    } finally {
      clearInterval(heartbeat);
    }
  });
  return server;
}
