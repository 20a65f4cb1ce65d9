import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { z } from "zod";
import {
  createGatewayBackend,
  type McpGatewayBackend,
} from "../../src/mcp/create-gateway-backend.js";
import { type HttpGateway, serveGatewayHttp } from "../../src/mcp/serve-gateway-http.js";
import type { PolicyRuleSpec } from "../../src/policy/policy-rule.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { defineTool } from "../../src/tool/define-tool.js";
import { connectWithBearer, resultText } from "./support/bearer-client.js";
import { type LocalClient, type LocalOidc, startLocalOidc } from "./support/local-oidc.js";

// Policy on what a client's token says: its groups and scopes, as CEL `caller.groups` and
// `caller.scopes`. The rules are docs/gateway.md's example (a fixture the page shows verbatim).
const RULES = new URL("../fixtures/gateway/caller-rules.yaml", import.meta.url);
const editor: LocalClient = {
  clientId: "editor",
  clientSecret: "editor-secret-0123456789abcd",
  scope: "tools:read tools:write",
};

let oidc: LocalOidc;
let store: Store;
let backend: McpGatewayBackend;
let gateway: HttpGateway;
const clients: Client[] = [];

async function connectWith(token: string): Promise<Client> {
  const client = await connectWithBearer(gateway.url, token, "caller-claims");
  clients.push(client);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const meta = result._meta?.["docket/call"] as { status: string; reason?: string };
  const text = resultText(result);
  return { status: meta.status, reason: meta.reason, text };
};

beforeAll(async () => {
  oidc = await startLocalOidc([editor]);
  store = await openStore(
    `sqlite:${join(await mkdtemp(join(tmpdir(), "docket-caller-")), "d.db")}`,
  );
  const rules = parse(await readFile(RULES, "utf8")) as PolicyRuleSpec[];
  backend = await createGatewayBackend({
    tools: [
      defineTool({
        name: "write_note",
        description: "Writes the note.",
        input: z.object({ text: z.string() }),
        writes: true,
        handler: ({ text }) => `wrote ${text}`,
      }),
      defineTool({
        name: "delete_note",
        description: "Deletes the note.",
        input: z.object({}),
        writes: true,
        handler: () => "deleted",
      }),
    ],
    store,
    policy: { rules },
  });
  gateway = await serveGatewayHttp(backend, { oauth: { issuer: oidc.issuer } });
}, 60_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => {});
  await gateway?.close();
  await backend?.close();
  await store?.close();
  await oidc?.close();
});

describe("a gateway client's scopes and groups in policy", () => {
  it("lets rules judge `caller.groups` and `caller.scopes` from the token", async () => {
    const now = Math.floor(Date.now() / 1000);
    // An administrator's token: in the admins group, without the write scope.
    const admin = await connectWith(
      await oidc.sign({
        iss: oidc.issuer,
        aud: gateway.url,
        sub: "ada",
        client_id: "console",
        scope: "tools:read",
        groups: ["admins", "staff"],
        iat: now,
        exp: now + 300,
      }),
    );
    // A token from the provider's token endpoint: the write scope, no groups.
    const writer = await connectWith(await oidc.token(editor, gateway.url));

    expect(await call(admin, "delete_note")).toMatchObject({ status: "ok", text: "deleted" });
    expect(await call(writer, "delete_note")).toMatchObject({
      status: "refused",
      text: expect.stringMatching(/only admins may delete notes/),
    });
    expect(await call(writer, "write_note", { text: "hi" })).toMatchObject({
      status: "ok",
      text: "wrote hi",
    });
    // No rule allows the admin's write (no scope), so the tool's default asks; with no approver
    // it is refused, not run.
    expect(await call(admin, "write_note", { text: "hi" })).toMatchObject({
      status: "refused",
      reason: "approval_required",
    });
    const decided = (await store.listEvents({ type: "decided" })).map((record) => record.event);
    expect(decided.map((event) => (event.type === "decided" ? event.rule : undefined))).toEqual(
      expect.arrayContaining(["admins-delete", "others-keep-notes", "writers-write"]),
    );
  }, 30_000);
});
