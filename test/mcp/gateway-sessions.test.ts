import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { generateToken } from "../../src/mcp/bearer-token.js";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { type HttpGateway, serveGatewayHttp } from "../../src/mcp/serve-gateway-http.js";
import { defineTool } from "../../src/tool/define-tool.js";

// The HTTP gateway at its session cap (2 here), with real clients over 127.0.0.1.
const token = generateToken();
let backend: McpGatewayBackend;
let gateway: HttpGateway;
const clients: Client[] = [];
let release: () => void = () => undefined;
const released = new Promise<void>((resolve) => {
  release = resolve;
});
let started = 0;

async function connect(): Promise<Client> {
  const client = new Client({ name: "cap-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

beforeAll(async () => {
  const slow = defineTool({
    name: "slow_write",
    description: "A write that takes until the test releases it.",
    input: z.object({ n: z.number() }),
    writes: true,
    timeoutMs: 30_000,
    handler: async ({ n }) => {
      started += 1;
      await released;
      return `wrote ${n}`;
    },
  });
  const quick = defineTool({
    name: "quick",
    description: "Answers at once.",
    input: z.object({}),
    writes: false,
    handler: () => "quick",
  });
  backend = await createGatewayBackend({
    tools: [slow, quick],
    events: createMemoryEventSink(),
    policy: () => ({ decision: "allow" }),
  });
  gateway = await serveGatewayHttp(backend, { token, maxSessions: 2 });
});

afterAll(async () => {
  release();
  for (const client of clients) await client.close().catch(() => {});
  await gateway?.close();
  await backend?.close();
});

describe("the HTTP gateway at its session cap", () => {
  it("evicts idle sessions first, answers in-flight calls, and refuses a client over the cap at connect", async () => {
    const a = await connect();
    const aCall = a.callTool({ name: "slow_write", arguments: { n: 1 } }, undefined, {
      timeout: 30_000,
    });
    const b = await connect();
    expect(textOf((await b.callTool({ name: "quick", arguments: {} })) as CallToolResult)).toBe(
      "quick",
    );
    while (started < 1) await new Promise((resolve) => setTimeout(resolve, 10));

    // A third client: B (idle) makes room, not A (its write in flight).
    const c = await connect();
    const cCall = c.callTool({ name: "slow_write", arguments: { n: 2 } }, undefined, {
      timeout: 30_000,
    });
    while (started < 2) await new Promise((resolve) => setTimeout(resolve, 10));

    // Both sessions busy: a fourth client is refused when it connects, with the reason.
    await expect(connect()).rejects.toThrow(/cap of 2 sessions and every one has a call in flight/);

    // B was closed while idle: it is told why, and no call of it was cut.
    await expect(b.callTool({ name: "quick", arguments: {} })).rejects.toThrow(
      /closed while idle to make room/,
    );

    release();
    expect(textOf((await aCall) as CallToolResult)).toBe("wrote 1");
    expect(textOf((await cCall) as CallToolResult)).toBe("wrote 2");

    // Now idle, A and C make room for a newcomer again.
    const d = await connect();
    expect(textOf((await d.callTool({ name: "quick", arguments: {} })) as CallToolResult)).toBe(
      "quick",
    );
  }, 60_000);
});
