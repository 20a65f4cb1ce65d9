/** An MCP `initialize` request as raw JSON text, for tests that speak HTTP to the gateway by hand. */
export const RAW_INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

/** The headers a Streamable HTTP POST needs, with a bearer token when given. */
export function rawHeaders(
  token?: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...extra,
  };
}
