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
import { RAW_INITIALIZE, rawHeaders } from "../gateway/support/raw-initialize.js";

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
  const waitMs = defineTool({
    name: "wait_ms",
    description: "Waits, then answers.",
    input: z.object({ ms: z.number() }),
    writes: false,
    handler: async ({ ms }) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return "waited";
    },
  });
  backend = await createGatewayBackend({
    tools: [slow, quick, waitMs],
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
  it("refuses a client over the cap at connect with 503 and Retry-After, and never cuts a busy session", async () => {
    const a = await connect();
    const aCall = a.callTool({ name: "slow_write", arguments: { n: 1 } }, undefined, {
      timeout: 30_000,
    });
    const b = await connect();
    expect(textOf((await b.callTool({ name: "quick", arguments: {} })) as CallToolResult)).toBe(
      "quick",
    );
    while (started < 1) await new Promise((resolve) => setTimeout(resolve, 10));

    // At the cap: a third client is refused when it connects, with the reason; nobody is evicted.
    const refused = await fetch(gateway.url, {
      method: "POST",
      headers: rawHeaders(token),
      body: RAW_INITIALIZE,
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(await refused.text()).toMatch(/at its cap of 2 sessions/);
    await expect(connect()).rejects.toThrow(/cap of 2 sessions/);

    // B, idle but within its idle timeout, still works: admission, not eviction.
    expect(textOf((await b.callTool({ name: "quick", arguments: {} })) as CallToolResult)).toBe(
      "quick",
    );
    release();
    expect(textOf((await aCall) as CallToolResult)).toBe("wrote 1");
    expect(gateway.sessions()).toBe(2);

    // B closes: room for a newcomer.
    await (b.transport as StreamableHTTPClientTransport).terminateSession();
    await b.close();
    const d = await connect();
    expect(textOf((await d.callTool({ name: "quick", arguments: {} })) as CallToolResult)).toBe(
      "quick",
    );
  }, 60_000);

  it("closes a session idle past the idle timeout, never one with a call in flight", async () => {
    const idleGateway = await serveGatewayHttp(backend, {
      token,
      maxSessions: 4,
      idleTimeoutMs: 300,
    });
    try {
      const connectTo = async () => {
        const client = new Client({ name: "idle-test", version: "1.0.0" });
        await client.connect(
          new StreamableHTTPClientTransport(new URL(idleGateway.url), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        clients.push(client);
        return client;
      };
      const idle = await connectTo();
      const busy = await connectTo();
      let done = false;
      const long = defineToolCallAfter(busy, 1_200).then((text) => {
        done = true;
        return text;
      });
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(idleGateway.sessions()).toBe(1);
      await expect(idle.callTool({ name: "quick", arguments: {} })).rejects.toThrow(/idle/);
      expect(done).toBe(false);
      expect(await long).toBe("waited");
    } finally {
      await idleGateway.close();
    }
  }, 30_000);
});

/** A call of `wait_ms` that holds its session busy for `ms`. */
async function defineToolCallAfter(client: Client, ms: number): Promise<string> {
  const result = (await client.callTool({ name: "wait_ms", arguments: { ms } }, undefined, {
    timeout: 30_000,
  })) as CallToolResult;
  return textOf(result);
}
