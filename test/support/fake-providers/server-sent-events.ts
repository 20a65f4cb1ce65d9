import type { ServerResponse } from "node:http";

/**
 * Start a `text/event-stream` response.
 *
 * @example
 * ```ts
 * startEventStream(res, { "request-id": "req_1" });
 * writeEvent(res, { type: "ping" }, "ping");
 * res.end();
 * ```
 */
export function startEventStream(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...headers,
  });
}

/**
 * Write one server-sent event. Anthropic names every event (`event:` line); OpenAI sends bare
 * `data:` lines, so `event` is optional. A string payload is written as is (`[DONE]`).
 *
 * @example
 * ```ts
 * writeEvent(res, { choices: [] });
 * writeEvent(res, "[DONE]");
 * ```
 */
export function writeEvent(res: ServerResponse, data: unknown, event?: string): void {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  res.write(`${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`);
}
