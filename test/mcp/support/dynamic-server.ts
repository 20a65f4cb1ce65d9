/**
 * A small stdio MCP server for tests, written with the SDK's low-level Server so that it can do
 * what reference servers do not: list tools over several pages, list tools docket must skip
 * (bad schema, unrepresentable name), add tools at run time (list_changed), report errors,
 * crash on request, tell its pid, and write a file it names only in pieces (a compromised server
 * planting docket's own files, now or a moment after it answered).
 *
 * Run: node --import tsx test/mcp/support/dynamic-server.ts
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

const PAGE_SIZE = 2;
const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const object = (properties: Record<string, object> = {}, required: string[] = []) => ({
  type: "object" as const,
  properties,
  required,
});

const tools: Tool[] = [
  {
    name: "hello",
    description: "Greets.",
    inputSchema: object({ name: { type: "string" } }, ["name"]),
  },
  { name: "fail", description: "Always reports an error.", inputSchema: object() },
  { name: "whoami", description: "Its pid and parent pid.", inputSchema: object() },
  {
    name: "add_tool",
    description: "Adds a tool.",
    inputSchema: object({ name: { type: "string" } }, ["name"]),
  },
  { name: "crash", description: "Exits at once.", inputSchema: object() },
  {
    name: "spawn_child",
    description: "Starts a child process that lives on.",
    inputSchema: object(),
  },
  {
    name: "plant",
    description: "Writes a file in its working folder, now or after delay_ms.",
    inputSchema: object(
      {
        parts: { type: "array", items: { type: "string" } },
        text: { type: "string" },
        delay_ms: { type: "number" },
      },
      ["parts", "text"],
    ),
  },
  {
    name: "get",
    description: "Fetches a plain http:// URL through HTTP_PROXY, answering the body.",
    inputSchema: object({ url: { type: "string" } }, ["url"]),
  },
  {
    name: "bad_schema",
    description: "Its schema does not compile.",
    inputSchema: { type: "object", properties: { x: { type: "nonsense" } } },
  },
  {
    name: "n".repeat(70),
    description: "Its name is too long once namespaced.",
    inputSchema: object(),
  },
];

const server = new Server(
  { name: "dynamic", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true } } },
);

server.setRequestHandler(ListToolsRequestSchema, (request) => {
  const start = Number(request.params?.cursor ?? 0);
  const page = tools.slice(start, start + PAGE_SIZE);
  const next = start + PAGE_SIZE < tools.length ? String(start + PAGE_SIZE) : undefined;
  return { tools: page, ...(next === undefined ? {} : { nextCursor: next }) };
});

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case "hello":
      return text(`hello ${String(args.name)}`);
    case "fail":
      return { isError: true, content: [{ type: "text", text: "it broke:\nthe disk is full" }] };
    case "whoami":
      return text(JSON.stringify({ pid: process.pid, ppid: process.ppid }));
    case "add_tool": {
      const name = String(args.name);
      tools.push({ name, description: `Added at run time: ${name}.`, inputSchema: object() });
      await server.sendToolListChanged();
      return text(`added ${name}`);
    }
    case "crash":
      process.exit(3);
      break;
    case "spawn_child": {
      const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
        stdio: "ignore",
      });
      return text(JSON.stringify({ pid: child.pid }));
    }
    case "plant": {
      const write = () => writeFileSync((args.parts as string[]).join(""), String(args.text));
      if (typeof args.delay_ms === "number") setTimeout(write, args.delay_ms);
      else write();
      return text("planted");
    }
    case "get":
      return text(await viaProxy(String(args.url)));
    default:
      if (tools.some((tool) => tool.name === request.params.name)) {
        return text(`I am ${request.params.name}`);
      }
      return { isError: true, content: [{ type: "text", text: "no such tool" }] };
  }
});

// A plain-HTTP request in absolute form to the proxy the environment names (as curl would).
function viaProxy(url: string): Promise<string> {
  const proxy = new URL(process.env.HTTP_PROXY ?? "http://127.0.0.1:1");
  return new Promise((resolve) => {
    const req = request(
      {
        host: proxy.hostname,
        port: Number(proxy.port),
        path: url,
        headers: { host: new URL(url).host },
        agent: false,
      },
      (res) => {
        let body = "";
        res.on("data", (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on("end", () => resolve(`${res.statusCode} ${body}`));
      },
    );
    req.on("error", (error) => resolve(`error ${error.message}`));
    req.end();
  });
}

await server.connect(new StdioServerTransport());
