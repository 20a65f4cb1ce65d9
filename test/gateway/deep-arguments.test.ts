import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createMemoryEventSink,
  type MemoryEventSink,
} from "../../src/checkpoint/memory-event-sink.js";
import { generateToken } from "../../src/mcp/bearer-token.js";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { type HttpGateway, serveGatewayHttp } from "../../src/mcp/serve-gateway-http.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { RAW_INITIALIZE, rawHeaders } from "./support/raw-initialize.js";

// Arguments nested 10,000 deep: refused as a result, recorded, never a stack overflow.
const token = generateToken();
let events: MemoryEventSink;
let backend: McpGatewayBackend;
let gateway: HttpGateway;
let ran = 0;

async function openSession(): Promise<Record<string, string>> {
  const init = await fetch(gateway.url, {
    method: "POST",
    headers: rawHeaders(token),
    body: RAW_INITIALIZE,
  });
  await init.text();
  const headers = rawHeaders(token, {
    "mcp-session-id": init.headers.get("mcp-session-id") as string,
    "mcp-protocol-version": "2025-06-18",
  });
  const initialized = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
  await (await fetch(gateway.url, { method: "POST", headers, body: initialized })).text();
  return headers;
}

beforeAll(async () => {
  events = createMemoryEventSink();
  const writeNote = defineTool({
    name: "write_note",
    description: "Writes the note.",
    input: z.object({ text: z.string() }).passthrough(),
    writes: true,
    handler: () => {
      ran += 1;
      return "wrote";
    },
  });
  backend = await createGatewayBackend({
    tools: [writeNote],
    events,
    policy: { rules: [{ decision: "allow", tool: "*" }] },
  });
  gateway = await serveGatewayHttp(backend, { token });
});

afterAll(async () => {
  await gateway?.close();
  await backend?.close();
});

describe("deeply nested arguments at the gateway", () => {
  it("are refused as a tool result, with the reason, and recorded like any call", async () => {
    const headers = await openSession();
    const deep = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_note","arguments":{"text":"x","deep":${deep}}}}`;
    const response = await fetch(gateway.url, { method: "POST", headers, body });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as {
      id: number;
      result: {
        isError: boolean;
        content: { text: string }[];
        _meta: Record<string, { id: string; reason: string }>;
      };
    };
    expect(answer.id).toBe(7);
    expect(answer.result.isError).toBe(true);
    expect(answer.result.content[0]?.text).toMatch(/nested deeper than the limit of 64 levels/);
    expect(JSON.stringify(answer)).not.toMatch(/call stack/i);
    const callId = answer.result._meta["docket/call"]?.id;
    expect(answer.result._meta["docket/call"]?.reason).toBe("unreadable_arguments");
    const recorded = events.events
      .filter((event) => event.callId === callId)
      .map((event) => event.type);
    expect(recorded).toContain("requested");
    expect(recorded).toContain("refused");
    expect(ran).toBe(0);

    // A shallow call on the same session still goes through the SDK as usual.
    const shallow = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"write_note","arguments":{"text":"x"}}}`;
    expect(
      await (await fetch(gateway.url, { method: "POST", headers, body: shallow })).text(),
    ).toMatch(/wrote/);
    expect(ran).toBe(1);
  }, 30_000);

  it("refuses any other deeply nested message with a JSON-RPC error, not a crash", async () => {
    const headers = await openSession();
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const body = `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":${deep}}}`;
    const answer = await (await fetch(gateway.url, { method: "POST", headers, body })).json();
    expect(answer).toMatchObject({
      id: 9,
      error: { code: -32600, message: expect.stringMatching(/nested deeper/) },
    });
  });
});
