import { type CallToolResult, CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { UpstreamCallOptions, UpstreamConnection } from "./upstream-connection.js";

/**
 * Call a tool on an upstream MCP server: the action itself, so an effect module, imported only by
 * upstream-tool.handler.ts. An `isError` result is returned as it is (the handler decides); a
 * timeout, a crash or an unreachable server is thrown as an Error whose message says which.
 *
 * @example
 * ```ts
 * declare const connection: import("./upstream-connection.js").UpstreamConnection;
 * const signal = AbortSignal.timeout(30_000);
 * const result = await callUpstreamTool(connection, "echo", { message: "hi" }, { signal });
 * ```
 */
export function callUpstreamTool(
  connection: Pick<UpstreamConnection, "use">,
  name: string,
  args: Record<string, unknown>,
  { signal, onProgress }: UpstreamCallOptions,
): Promise<CallToolResult> {
  return connection.use(signal, (client, deadlines) =>
    client.request(
      { method: "tools/call", params: { name, arguments: args } },
      CallToolResultSchema,
      {
        signal,
        // The idle deadline: progress notifications push it back, up to the total.
        timeout: deadlines.timeoutMs,
        maxTotalTimeout: deadlines.maxTotalTimeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => onProgress?.(progress),
      },
    ),
  );
}
