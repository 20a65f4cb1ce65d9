import { request } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  type CallToolResult,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { wrapUntrusted } from "../../src/checkpoint/wrap-untrusted.js";
import { generateToken } from "../../src/mcp/bearer-token.js";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { createLiveCheckpoint } from "../../src/mcp/live-checkpoint.js";
import { type HttpGateway, serveGatewayHttp } from "../../src/mcp/serve-gateway-http.js";
import { RAW_INITIALIZE } from "../gateway/support/raw-initialize.js";
import { dynamicServer, memoryLog, waitFor } from "./support/mcp-fixtures.js";

const token = generateToken();
const events = createMemoryEventSink();
let backend: McpGatewayBackend;
let gateway: HttpGateway;
const clients: Client[] = [];

async function connect(headers: Record<string, string> = { authorization: `Bearer ${token}` }) {
  const client = new Client({ name: "http-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(gateway.url), { requestInit: { headers } }),
  );
  clients.push(client);
  return client;
}

function post(headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      gateway.url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const initialize = RAW_INITIALIZE;
const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

beforeAll(async () => {
  backend = await createGatewayBackend({
    mcp: { servers: { dyn: dynamicServer() } },
    log: memoryLog().log,
    events,
    policy: { rules: [{ decision: "allow", tool: ["dyn__hello", "dyn__late_*"] }] },
    // About servers, not taint: their results must not turn the allowed calls into asks.
    taint: { writes: "allow" },
    // Writes ask; this approver takes its time, then approves.
    approvals: async () => {
      await new Promise((resolve) => setTimeout(resolve, 600));
      return { decision: "approve", by: "reviewer" };
    },
  });
  gateway = await serveGatewayHttp(backend, { token, maxBodyBytes: 64 * 1024 });
});

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await gateway?.close();
  await backend?.close();
});

describe("docket gateway over Streamable HTTP", () => {
  it("listens on 127.0.0.1 only", () => {
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it("answers 401 without the bearer token, and 403 to a foreign Host", async () => {
    expect(await post({}, initialize)).toBe(401);
    expect(await post({ authorization: "Bearer wrong" }, initialize)).toBe(401);
    expect(await post({ authorization: token }, initialize)).toBe(401);
    await expect(connect({})).rejects.toThrow();
    expect(
      await post({ authorization: `Bearer ${token}`, host: "evil.example:80" }, initialize),
    ).toBe(403);
  });

  it("caps the request body and refuses unknown sessions", async () => {
    const auth = { authorization: `Bearer ${token}` };
    expect(await post(auth, JSON.stringify({ pad: "x".repeat(70 * 1024) }))).toBe(413);
    expect(await post({ ...auth, "mcp-session-id": "no-such-session" }, initialize)).toBe(404);
    expect(await post(auth, "{not json")).toBe(400);
  });

  it("serves the menu and sends calls through the checkpoint in the principal's conversation", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("dyn__hello");
    const result = (await client.callTool({
      name: "dyn__hello",
      arguments: { name: "http" },
    })) as CallToolResult;
    expect(textOf(result)).toBe(wrapUntrusted("dyn__hello", "hello http"));
    const requested = events.events.find((e) => e.type === "requested" && e.tool === "dyn__hello");
    // The principal's conversation, not the transport session: a reconnect keeps its taint.
    expect(requested?.sessionId).toBe("gateway:agent");
    expect(requested?.callId).toMatch(/^mcp-[0-9a-f-]{36}$/);
  });

  it("tells clients when the upstream menu changes", async () => {
    const client = await connect();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed += 1;
    });
    await client.callTool({ name: "dyn__add_tool", arguments: { name: "late_one" } });
    await waitFor(() => changed > 0, 5_000, "tools/list_changed");
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("dyn__late_one");
    const result = (await client.callTool({
      name: "dyn__late_one",
      arguments: {},
    })) as CallToolResult;
    expect(textOf(result)).toBe(wrapUntrusted("dyn__late_one", "I am late_one"));
  });

  it("never runs a call the client cancelled while it waited for approval", async () => {
    const client = await connect();
    const controller = new AbortController();
    const pending = client.callTool(
      { name: "dyn__add_tool", arguments: { name: "never" } },
      undefined,
      {
        signal: controller.signal,
      },
    );
    setTimeout(() => controller.abort(), 150);
    await expect(pending).rejects.toThrow();
    // Past the approver's answer: the call was refused as cancelled and nothing ran.
    await waitFor(
      () => events.events.some((e) => e.type === "refused" && e.reason === "cancelled"),
      3_000,
      "the cancelled refusal",
    );
    expect(backend.tools().map((tool) => tool.name)).not.toContain("dyn__never");
    const started = events.events.filter((e) => e.type === "started" && e.tool === "dyn__add_tool");
    expect(started).toHaveLength(1);
  });

  it("cancels a call whose client dropped the connection, so it never runs", async () => {
    const headers = {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const init = await fetch(gateway.url, { method: "POST", headers, body: initialize });
    const session = init.headers.get("mcp-session-id") ?? "";
    await init.text();
    const withSession = { ...headers, "mcp-session-id": session };
    const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
    await (
      await fetch(gateway.url, { method: "POST", headers: withSession, body: initialized })
    ).text();

    const controller = new AbortController();
    const call = fetch(gateway.url, {
      method: "POST",
      headers: withSession,
      signal: controller.signal,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "dyn__add_tool", arguments: { name: "dropped" } },
      }),
    }).then((response) => response.text());
    setTimeout(() => controller.abort(), 150);
    await expect(call).rejects.toThrow();
    await waitFor(
      () =>
        events.events.filter((e) => e.type === "refused" && e.reason === "cancelled").length >= 2,
      3_000,
      "the second cancelled refusal",
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(backend.tools().map((tool) => tool.name)).not.toContain("dyn__dropped");
  });

  it("keeps a client that resets its timeout on progress waiting through a slow approval", async () => {
    const beating = await serveGatewayHttp(backend, { token, heartbeatMs: 100 });
    try {
      const client = new Client({ name: "patient", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(beating.url), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
      let beats = 0;
      // The approver needs 600 ms; the client gives up after 300 ms without progress.
      const result = (await client.callTool({ name: "dyn__whoami", arguments: {} }, undefined, {
        timeout: 300,
        resetTimeoutOnProgress: true,
        onprogress: () => {
          beats += 1;
        },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(beats).toBeGreaterThanOrEqual(3);
    } finally {
      await beating.close();
    }
  });

  it("is itself a Streamable HTTP upstream for another docket", async () => {
    const { log } = memoryLog();
    const upstreams = await connectMcpServers(
      {
        servers: {
          chained: {
            url: gateway.url,
            headers: { authorization: `Bearer ${token}` },
            writes: false,
          },
        },
      },
      { log },
    );
    try {
      const names = upstreams.tools().map((tool) => tool.name);
      expect(names).toContain("chained__dyn__hello");
      const checkpoint = createLiveCheckpoint({
        tools: () => upstreams.tools(),
        events: createMemoryEventSink(),
      });
      const result = await checkpoint.dispatch({
        id: "chained-1",
        name: "chained__dyn__hello",
        arguments: '{"name":"twice"}',
      });
      // The upstream docket wrapped it; the text here is its envelope, wrapped once when shown.
      expect(result).toMatchObject({
        status: "ok",
        output: wrapUntrusted("dyn__hello", "hello twice"),
      });
    } finally {
      await upstreams.close();
    }
  });

  it("reconnects to a Streamable HTTP upstream that went away and came back", async () => {
    const first = await serveGatewayHttp(backend, { token });
    const { log } = memoryLog();
    const upstreams = await connectMcpServers(
      { servers: { remote: { url: first.url, headers: { authorization: `Bearer ${token}` } } } },
      { log },
    );
    const checkpoint = createLiveCheckpoint({
      tools: () => upstreams.tools(),
      policy: () => ({ decision: "allow" }),
      // About servers, not taint: their results must not turn the allowed calls into asks.
      taint: { writes: "allow" },
      events: createMemoryEventSink(),
    });
    const hello = () =>
      checkpoint.dispatch({
        id: `h-${Math.random()}`,
        name: "remote__dyn__hello",
        arguments: '{"name":"again"}',
      });
    let second: HttpGateway | undefined;
    try {
      expect(await hello()).toMatchObject({ status: "ok" });
      await first.close();
      const down = await hello();
      expect(down).toMatchObject({ status: "failed", reason: "error" });
      expect(down.message).toContain('MCP server "remote" could not be reached');
      second = await serveGatewayHttp(backend, { token, port: first.port });
      expect(await hello()).toMatchObject({
        status: "ok",
        output: wrapUntrusted("dyn__hello", "hello again"),
      });
      expect(upstreams.status()[0]).toMatchObject({ state: "connected", restarts: 1 });
    } finally {
      await upstreams.close();
      await second?.close();
    }
  });
});
