import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import { memoryLog } from "./support/mcp-fixtures.js";

// The MCP SDK reads a Streamable HTTP server's messages with V8's JSON.parse, which can misread
// an escaped object key as one holding a backslash (nodejs/node#63785, ADR 0083). A tool whose
// definition has such a key is one docket cannot read exactly, so it is not offered.
const tools: Tool[] = [
  {
    name: "plain",
    description: "Echoes a note.",
    inputSchema: { type: "object", properties: { note: { type: "string" } } },
  },
  {
    name: "odd",
    description: "Takes a parameter whose name holds a backslash.",
    inputSchema: { type: "object", properties: { "C:\\notes": { type: "string" } } },
  },
];

let http: HttpServer;
let url: string;

beforeAll(async () => {
  http = createServer(async (req, res) => {
    const server = new Server(
      { name: "escapes", version: "1.0.0" },
      { capabilities: { tools: {} } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async () => ({
      content: [{ type: "text", text: "ok" }],
    }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((resolve) => http.close(resolve));
});

describe("a Streamable HTTP upstream's tool definitions", () => {
  it("offers a tool with plain keys, and refuses one with a key holding a backslash, saying why", async () => {
    const { lines, log } = memoryLog();
    const upstreams = await connectMcpServers({ servers: { remote: { url } } }, { log });
    try {
      expect(upstreams.tools().map((tool) => tool.name)).toEqual(["remote__plain"]);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: "warn",
          server: "remote",
          tool: "odd",
          message: expect.stringMatching(/key holding a backslash.*not offered/),
        }),
      );
    } finally {
      await upstreams.close();
    }
  });
});
