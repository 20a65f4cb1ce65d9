/**
 * A stdio MCP server for the pinning tests whose tools are read from a JSON file at start
 * (`CHANGING_TOOLS_FILE`: `[{ name, description }]`), so a test can change a tool's description,
 * or add a tool, between two runs, as an outside server might ("rug pull").
 *
 * Run: node --import tsx test/mcp/support/changing-server.ts
 */
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

const file = process.env.CHANGING_TOOLS_FILE;
if (!file) throw new Error("CHANGING_TOOLS_FILE is not set");
const listed = JSON.parse(readFileSync(file, "utf8")) as { name: string; description: string }[];
const tools: Tool[] = listed.map(({ name, description }) => ({
  name,
  description,
  inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
}));

const server = new Server({ name: "changing", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => ({
  content: [
    { type: "text", text: `${request.params.name}: ${JSON.stringify(request.params.arguments)}` },
  ],
}));
await server.connect(new StdioServerTransport());
