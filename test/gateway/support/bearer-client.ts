import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** An MCP SDK client connected to `url` over Streamable HTTP with `Authorization: Bearer token`. */
export async function connectWithBearer(
  url: string,
  token: string,
  name = "test",
): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** The text blocks of a tool result, joined. */
export const resultText = (result: CallToolResult): string =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
