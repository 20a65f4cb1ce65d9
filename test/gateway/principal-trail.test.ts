import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { type HttpGateway, serveGatewayHttp } from "../../src/mcp/serve-gateway-http.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import type { StoreEvent } from "../../src/store/store-event.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { type LocalClient, type LocalOidc, startLocalOidc } from "./support/local-oidc.js";
import { RAW_INITIALIZE, rawHeaders } from "./support/raw-initialize.js";

// Every kind of event the HTTP gateway records names the principal it concerns: the calls (their
// `requested` event, in the principal's conversation), approvals, refusals by policy and at the
// HTTP layer, and the sessions clients open and close. A real OpenID provider, the MCP SDK's
// client, a real SQLite store.
const alice: LocalClient = {
  clientId: "alice-editor",
  clientSecret: "alice-secret-0123456789abcd",
  scope: "tools:read tools:write",
};

let oidc: LocalOidc;
let store: Store;
let backend: McpGatewayBackend;
let gateway: HttpGateway;

async function connect(): Promise<Client> {
  const client = new Client({ name: "principal-trail", version: "1.0.0" });
  const authProvider = new ClientCredentialsProvider({
    clientId: alice.clientId,
    clientSecret: alice.clientSecret,
    scope: alice.scope,
    expectedIssuer: oidc.issuer,
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider }));
  return client;
}

const meta = (result: CallToolResult) =>
  result._meta?.["docket/call"] as { id: string; status: string };
type SystemData = Record<string, unknown>;
const systemData = (event: StoreEvent) =>
  event.type === "system" ? (event.data as SystemData) : {};

beforeAll(async () => {
  oidc = await startLocalOidc([alice]);
  store = await openStore(
    `sqlite:${join(await mkdtemp(join(tmpdir(), "docket-ptrail-")), "d.db")}`,
  );
  const tools = [
    defineTool({
      name: "read_note",
      description: "Reads the note.",
      input: z.object({}),
      writes: false,
      handler: () => "the note",
    }),
    defineTool({
      name: "publish_note",
      description: "Publishes the note.",
      input: z.object({}),
      writes: true,
      handler: () => "published",
    }),
    defineTool({
      name: "delete_note",
      description: "Deletes the note.",
      input: z.object({}),
      writes: true,
      handler: () => "deleted",
    }),
  ];
  backend = await createGatewayBackend({
    tools,
    store,
    approvals: () => ({ decision: "approve", by: "lead" }),
    policy: { rules: [{ id: "no-deletes", decision: "deny", tool: "delete_note" }] },
  });
  gateway = await serveGatewayHttp(
    {
      ...backend,
      openSession: async (id, _transport, principal = "agent") => {
        if (!(await store.getSession(id)))
          await store.createSession({ id, principal, configHash: "test" });
      },
    },
    { oauth: { issuer: oidc.issuer }, maxBodyBytes: 4096 },
  );
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await backend?.close();
  await store?.close();
  await oidc?.close();
});

describe("the principal on every event the gateway records", () => {
  it("names the principal on calls, approvals, policy refusals and sessions", async () => {
    const client = await connect();
    const read = (await client.callTool({ name: "read_note", arguments: {} })) as CallToolResult;
    const asked = (await client.callTool({
      name: "publish_note",
      arguments: {},
    })) as CallToolResult;
    const denied = (await client.callTool({
      name: "delete_note",
      arguments: {},
    })) as CallToolResult;
    expect([meta(read).status, meta(asked).status, meta(denied).status]).toEqual([
      "ok",
      "ok",
      "refused",
    ]);
    const transport = client.transport as StreamableHTTPClientTransport;
    const mcpSession = transport.sessionId;
    await transport.terminateSession();
    await client.close();

    const trail = await store.listEvents({ sessionId: "gateway:alice-editor" });
    const calls = new Map<string, StoreEvent[]>();
    for (const { event } of trail) {
      if (event.type === "system") continue;
      calls.set(event.callId, [...(calls.get(event.callId) ?? []), event]);
    }
    // Each call's first event names the principal; every later one is tied to it by call id in
    // the principal's own chain.
    for (const result of [read, asked, denied]) {
      const events = calls.get(meta(result).id) ?? [];
      expect(events[0]).toMatchObject({ type: "requested", principal: "alice-editor" });
      expect(events.every((event) => event.sessionId === "gateway:alice-editor")).toBe(true);
    }
    const kinds = new Set(trail.map((record) => record.event.type));
    for (const kind of ["requested", "decided", "finished", "refused", "approved"])
      expect(kinds, kind).toContain(kind);
    const approval = trail.find((record) => record.event.type === "approval_requested");
    expect(approval?.event).toMatchObject({ principal: "alice-editor" });
    expect(trail.find((record) => record.event.type === "approved")?.event).toMatchObject({
      by: "lead",
    });
    expect((await store.getSession("gateway:alice-editor"))?.principal).toBe("alice-editor");

    const sessions = trail
      .map((record) => record.event)
      .filter((event) => event.type === "system" && event.kind === "gateway_session")
      .map(systemData);
    expect(sessions).toEqual([
      {
        status: "opened",
        principal: "alice-editor",
        client: "alice-editor",
        address: "127.0.0.1",
        mcpSession,
      },
      {
        status: "closed",
        principal: "alice-editor",
        client: "alice-editor",
        address: "127.0.0.1",
        mcpSession,
      },
    ]);
    expect((await store.verifyChain()).ok).toBe(true);
  }, 30_000);

  it("refuses malformed and oversize bodies with a JSON-RPC error and records who and from where", async () => {
    const token = await oidc.token(alice, gateway.url);
    const malformed = await fetch(gateway.url, {
      method: "POST",
      headers: rawHeaders(token),
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/call",',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: expect.stringMatching(/Parse error/) },
    });
    const oversize = await fetch(gateway.url, {
      method: "POST",
      headers: rawHeaders(token),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "ping",
        params: { pad: "x".repeat(8000) },
      }),
    });
    expect(oversize.status).toBe(413);
    expect(await oversize.json()).toMatchObject({
      error: { code: -32600, message: expect.stringMatching(/over 4096 bytes/) },
    });
    // No valid token: refused and recorded with no principal, the address still known.
    const anonymous = await fetch(gateway.url, {
      method: "POST",
      headers: rawHeaders(undefined),
      body: RAW_INITIALIZE,
    });
    expect(anonymous.status).toBe(401);

    const refusals = (await store.listEvents({ type: "system" }))
      .map((record) => record.event)
      .filter((event) => event.type === "system" && event.kind === "gateway_refused")
      .map(systemData);
    expect(refusals).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          reason: "malformed_body",
          httpStatus: 400,
          principal: "alice-editor",
          address: "127.0.0.1",
        }),
        expect.objectContaining({
          reason: "body_too_large",
          httpStatus: 413,
          principal: "alice-editor",
          address: "127.0.0.1",
        }),
        expect.objectContaining({
          reason: "unauthorized",
          httpStatus: 401,
          principal: null,
          address: "127.0.0.1",
        }),
      ]),
    );
    expect((await store.verifyChain()).ok).toBe(true);
  }, 30_000);
});
