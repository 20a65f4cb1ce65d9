import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolContext } from "../tool/tool.js";
import { callUpstreamTool } from "./call-upstream-tool.effect.js";
import { errorText } from "./shape-call-result.js";
import type { UpstreamConnection } from "./upstream-connection.js";

const PROGRESS_LOG_EVERY_MS = 5_000;

/**
 * The handler of one upstream MCP tool: calls it, logs progress at most every 5 s, and turns
 * an `isError` result into a failure whose message is the server's own words. Only
 * define-upstream-tool.ts (beside it) imports it, to seal it into the tool.
 *
 * @example
 * ```ts
 * import { defineTool } from "../tool/define-tool.js";
 * declare const connection: import("./upstream-connection.js").UpstreamConnection;
 * const input = { type: "object", properties: { message: { type: "string" } } } as const;
 * defineTool({ name: "everything__echo", description: "Echoes back the input.", input, writes: false, handler: upstreamToolHandler(connection, "echo") });
 * ```
 */
export function upstreamToolHandler(
  connection: Pick<UpstreamConnection, "use"> & Partial<Pick<UpstreamConnection, "trackCall">>,
  toolName: string,
): (args: Record<string, unknown>, ctx: ToolContext) => Promise<CallToolResult> {
  return async (args, ctx) => {
    let loggedAt = 0;
    // The server's connections while it serves this call go to this call's trail.
    // Its network asks are this call's, in its session (ADR 0069).
    const leave = connection.trackCall?.((message, data) => ctx.log(message, data), {
      callId: ctx.callId,
      sessionId: ctx.sessionId,
      principal: ctx.principal,
    });
    const result = await callUpstreamTool(connection, toolName, args, {
      signal: ctx.signal,
      onProgress: ({ progress, total, message }) => {
        if (Date.now() - loggedAt < PROGRESS_LOG_EVERY_MS) return;
        loggedAt = Date.now();
        ctx.log(`progress ${progress}${total ? `/${total}` : ""}${message ? `: ${message}` : ""}`);
      },
    }).finally(() => leave?.());
    if (result.isError === true) throw new Error(errorText(result));
    return result;
  };
}
