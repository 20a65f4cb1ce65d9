import type { ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";

/** The ids of the JSON-RPC requests in a POST body (one message or a batch). */
function requestIds(body: unknown): (string | number)[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) => {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    return typeof method === "string" && (typeof id === "string" || typeof id === "number")
      ? [id]
      : [];
  });
}

/**
 * A client that drops the connection before its answer arrives has given up on the call, even
 * without sending `notifications/cancelled`: cancel it the same way, so that a call still
 * waiting for approval never runs (fail closed). Ids that already finished are ignored.
 *
 * @example
 * ```ts
 * import type { IncomingMessage, ServerResponse } from "node:http";
 * import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
 * declare const transport: StreamableHTTPServerTransport;
 * declare const req: IncomingMessage;
 * declare const res: ServerResponse;
 * declare const body: unknown;
 * cancelOnDisconnect(transport, res, body);
 * await transport.handleRequest(req, res, body);
 * ```
 */
export function cancelOnDisconnect(
  transport: StreamableHTTPServerTransport,
  res: ServerResponse,
  body: unknown,
): void {
  const ids = requestIds(body);
  if (ids.length === 0) return;
  res.once("close", () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      transport.onmessage?.({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId, reason: "the client disconnected" },
      });
    }
  });
}
