import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClientCredentialsProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { createDurableApprover } from "../../src/approval/durable-approver.js";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { type HttpGateway, serveGatewayHttp } from "../../src/mcp/serve-gateway-http.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { type LocalClient, type LocalOidc, startLocalOidc } from "./support/local-oidc.js";
import { RAW_INITIALIZE, rawHeaders } from "./support/raw-initialize.js";

// The HTTP gateway as an OAuth 2.1 resource server in front of a real OpenID provider, with the
// MCP SDK's own client doing the discovery, and a real SQLite store for the trail.
const reader: LocalClient = {
  clientId: "reader",
  clientSecret: "reader-secret-0123456789abc",
  scope: "tools:read",
};
const writer: LocalClient = {
  clientId: "writer",
  clientSecret: "writer-secret-0123456789abc",
  scope: "tools:read tools:write",
};
const outsider: LocalClient = {
  clientId: "outsider",
  clientSecret: "outsider-secret-0123456789",
  scope: "profile",
};

let oidc: LocalOidc;
let store: Store;
let backend: McpGatewayBackend;
let gateway: HttpGateway;
const clients: Client[] = [];

const textOf = (result: CallToolResult) =>
  result.content.map((block) => (block.type === "text" ? block.text : "")).join("");

async function connectAs(who: LocalClient): Promise<Client> {
  const client = new Client({ name: `${who.clientId}-app`, version: "1.0.0" });
  const authProvider = new ClientCredentialsProvider({
    clientId: who.clientId,
    clientSecret: who.clientSecret,
    scope: who.scope,
    expectedIssuer: oidc.issuer,
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url), { authProvider }));
  clients.push(client);
  return client;
}

function post(token: string | undefined, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(gateway.url, {
    method: "POST",
    headers: rawHeaders(token, headers),
    body: RAW_INITIALIZE,
  });
}

beforeAll(async () => {
  oidc = await startLocalOidc([reader, writer, outsider]);
  store = await openStore(
    `sqlite:${join(await mkdtemp(join(tmpdir(), "docket-oauth-")), "docket.db")}`,
  );
  const readNote = defineTool({
    name: "read_note",
    description: "Reads the note.",
    input: z.object({}),
    writes: false,
    handler: () => "the note",
  });
  const writeNote = defineTool({
    name: "write_note",
    description: "Writes the note.",
    input: z.object({ text: z.string() }),
    writes: true,
    handler: ({ text }) => `wrote ${text}`,
  });
  const publishNote = defineTool({
    name: "publish_note",
    description: "Publishes the note.",
    input: z.object({}),
    writes: true,
    handler: () => "published",
  });
  backend = await createGatewayBackend({
    tools: [readNote, writeNote, publishNote],
    store,
    approvals: createDurableApprover({
      store,
      directory: createApproverDirectory({ lead: { roles: ["lead"] } }),
      mode: "suspend",
    }),
    policy: {
      rules: [
        {
          id: "writers-write",
          decision: "allow",
          tool: "write_note",
          when: 'principal == "writer"',
        },
        {
          id: "others-read-only",
          decision: "deny",
          tool: "write_note",
          when: 'principal != "writer"',
          reason: "only the writer client may write notes",
        },
      ],
    },
  });
  gateway = await serveGatewayHttp(
    {
      ...backend,
      openSession: async (id, _transport, principal = "agent") => {
        if (!(await store.getSession(id)))
          await store.createSession({ id, principal, configHash: "test" });
      },
    },
    {
      oauth: { issuer: oidc.issuer, requiredScopes: ["tools:read"] },
      allowedOrigins: ["https://console.example.com"],
    },
  );
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await gateway?.close();
  await backend?.close();
  await store?.close();
  await oidc?.close();
});

describe("the HTTP gateway as an OAuth resource server", () => {
  it("answers a request without a token with 401 pointing at its protected resource metadata", async () => {
    const response = await post(undefined);
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    const metadataUrl = gateway.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    expect(challenge).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    const metadata = (await (await fetch(metadataUrl)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      resource: gateway.url,
      authorization_servers: [oidc.issuer],
      bearer_methods_supported: ["header"],
      scopes_supported: ["tools:read"],
    });
  });

  it("refuses expired, wrong-audience and wrong-issuer tokens with the spec's headers", async () => {
    const now = Math.floor(Date.now() / 1000);
    const base = {
      sub: "writer",
      client_id: "writer",
      scope: "tools:read",
      iss: oidc.issuer,
      aud: gateway.url,
    };
    const cases: [string, string, RegExp][] = [
      ["expired", await oidc.sign({ ...base, iat: now - 7200, exp: now - 3600 }), /expired/],
      ["wrong audience", await oidc.token(writer, "http://127.0.0.1:1/other"), /another audience/],
      [
        "wrong issuer",
        await oidc.sign({ ...base, iss: "http://127.0.0.1:1", exp: now + 300 }),
        /another issuer/,
      ],
      ["garbage", "not.a.jwt", /could not be verified/],
    ];
    for (const [name, token, why] of cases) {
      const response = await post(token);
      expect(response.status, name).toBe(401);
      const challenge = response.headers.get("www-authenticate") ?? "";
      expect(challenge, name).toMatch(
        /^Bearer resource_metadata="[^"]+", error="invalid_token", error_description="/,
      );
      expect(challenge, name).toMatch(why);
    }
  });

  it("answers a valid token without the required scope with 403 insufficient_scope", async () => {
    const response = await post(await oidc.token(outsider, gateway.url));
    expect(response.status).toBe(403);
    expect(response.headers.get("www-authenticate")).toMatch(
      /error="insufficient_scope", scope="tools:read"/,
    );
  });

  it("lets the MCP SDK client discover, authorise and call; each client is its own principal", async () => {
    const asWriter = await connectAs(writer);
    const asReader = await connectAs(reader);
    const wrote = (await asWriter.callTool({
      name: "write_note",
      arguments: { text: "hi" },
    })) as CallToolResult;
    expect(wrote.isError).toBeFalsy();
    expect(textOf(wrote)).toBe("wrote hi");
    const refused = (await asReader.callTool({
      name: "write_note",
      arguments: { text: "hi" },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/only the writer client may write notes/);
    expect(
      textOf((await asReader.callTool({ name: "read_note", arguments: {} })) as CallToolResult),
    ).toBe("the note");

    const trail = await store.listEvents({ type: "requested" });
    const byPrincipal = new Map(trail.map((record) => [record.sessionId, record.event]));
    expect(byPrincipal.get("gateway:writer")).toMatchObject({ principal: "writer" });
    expect(byPrincipal.get("gateway:reader")).toMatchObject({ principal: "reader" });
    expect((await store.getSession("gateway:reader"))?.principal).toBe("reader");
    const decided = await store.listEvents({ sessionId: "gateway:reader", tool: "write_note" });
    expect(
      decided.some((record) => JSON.stringify(record.event).includes("others-read-only")),
    ).toBe(true);
  }, 30_000);

  it("shows approvers which principal asked", async () => {
    const asReader = clients[1] ?? (await connectAs(reader));
    const asked = (await asReader.callTool({
      name: "publish_note",
      arguments: {},
    })) as CallToolResult;
    expect(asked._meta?.["docket/call"]).toMatchObject({ status: "awaiting_approval" });
    const [approval] = await store.listApprovals({ sessionId: "gateway:reader" });
    expect(approval?.requestedBy).toBe("reader");
    expect(approval?.tool).toBe("publish_note");
  }, 30_000);

  it("refuses a browser Origin it was not told to trust, and lets a listed one through", async () => {
    const token = await oidc.token(writer, gateway.url);
    expect((await post(token, { origin: "https://evil.example" })).status).toBe(403);
    expect((await post(token, { origin: "https://console.example.com" })).status).toBe(200);
  });
});
