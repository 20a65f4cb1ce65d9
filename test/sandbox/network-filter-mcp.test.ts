import { mkdtemp, realpath, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAuditSigner } from "../../src/audit/create-audit-signer.js";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import { createLiveCheckpoint } from "../../src/mcp/live-checkpoint.js";
import { resolveMcpConfig } from "../../src/mcp/mcp-config.js";
import { ProcessTransport } from "../../src/mcp/process-transport.js";
import type { NetworkConnection } from "../../src/sandbox/network/network-connection.js";
import { sandboxCanRun } from "../../src/sandbox/network/visible-node.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import { dynamicServer, memoryLog, waitFor } from "../mcp/support/mcp-fixtures.js";
import { runDocket } from "../support/run-docket.js";
import { trailConnections } from "./support/trail-connections.js";

// A sandboxed MCP server's network by host name: the same proxy as run_command, for as long as
// the server runs. Real bubblewrap, a real server on 127.0.0.1, real curl.
const available = probeSandbox().status === "available";
// A server whose program lives under /tmp cannot start sandboxed (its /tmp is the sandbox's own).
const repoInPrivateFolder = /^\/(tmp|run|var\/tmp)\//.test(
  new URL("../../", import.meta.url).pathname,
);
// The server is this Node.js, run inside the sandbox: not where the sandbox's user cannot enter
// (root running a Node installed under another user's 0700 home).
const nodeOutOfReach = !sandboxCanRun(process.execPath);
const HOST = "api.docket-test.example";
let workspace: string;
let server: Server;
let port: number;

beforeAll(async () => {
  workspace = await realpath(await mkdtemp(join(tmpdir(), "docket-mcp-net-")));
  server = createServer((_req, res) => res.end("served-to-mcp"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.close();
  await rm(workspace, { recursive: true, force: true });
});

describe("mcp.servers.NAME.sandbox.network with host lists", () => {
  it("becomes the server's own rule layer", () => {
    const [server] = resolveMcpConfig({
      servers: {
        api: {
          command: "x",
          sandbox: { network: { allow: [HOST], hosts: { [HOST]: "127.0.0.1" } } },
        },
      },
    });
    expect(server).toMatchObject({
      sandbox: {
        network: { rules: [{ name: "mcp.api", allow: [HOST] }], hosts: { [HOST]: "127.0.0.1" } },
      },
    });
    expect(() =>
      resolveMcpConfig({
        servers: { api: { command: "x", sandbox: { network: { allow: ["a b"] } } } },
      }),
    ).toThrow(/mcp\.servers\.api\.sandbox\.network\.allow\.0: bad host pattern/);
  });

  it.skipIf(!available)(
    "lets the server reach a listed name only, and reports each connection",
    async () => {
      const connections: NetworkConnection[] = [];
      const stderr: string[] = [];
      const [config] = resolveMcpConfig({
        servers: {
          api: {
            command: "sh",
            args: [
              "-c",
              `curl -sS http://${HOST}:${port}/ 1>&2; echo 1>&2; curl -sS http://unlisted.example.org/ 1>&2; echo done 1>&2; sleep 30`,
            ],
            sandbox: { network: { allow: [HOST], hosts: { [HOST]: "127.0.0.1" } } },
          },
        },
      });
      if (config?.transport !== "stdio") throw new Error("expected a stdio server");
      const transport = new ProcessTransport({
        command: config.command,
        args: config.args,
        sandbox: { ...(config.sandbox ?? { network: "none" }), workspace },
        onStderr: (line) => stderr.push(line),
        onNetworkConnection: (connection) => connections.push(connection),
      });
      await transport.start();
      try {
        await waitFor(() => stderr.includes("done"), 20_000);
        expect(stderr).toContain("served-to-mcp");
        expect(stderr.join("\n")).toContain(
          "docket refused the connection to unlisted.example.org:80",
        );
        await waitFor(() => connections.length === 2, 5_000);
        expect(connections.map((c) => [c.host, c.decision, c.rule, c.status])).toEqual([
          [HOST, "allow", `mcp.api:allow:${HOST}`, "closed"],
          ["unlisted.example.org", "deny", "no_rule", "refused"],
        ]);
      } finally {
        await transport.close();
      }
    },
  );

  it.skipIf(!available || repoInPrivateFolder || nodeOutOfReach)(
    "records the server's connections in the signed trail of the call it was serving",
    async () => {
      const dir = await realpath(await mkdtemp(join(tmpdir(), "docket-mcp-net-trail-")));
      const url = `sqlite:${join(dir, "docket.db")}`;
      const signer = await createAuditSigner();
      const store = await openStore(url, { signer });
      const session = await store.createSession({ principal: "agent", configHash: "" });
      const { log, lines } = memoryLog();
      const upstreams = await connectMcpServers(
        {
          servers: {
            api: dynamicServer({
              cwd: workspace,
              sandbox: { network: { allow: [HOST], hosts: { [HOST]: "127.0.0.1" } } },
            }),
          },
        },
        { log, sandbox: { settings: {}, workspace } },
      );
      try {
        const checkpoint = createLiveCheckpoint({
          tools: () => upstreams.tools(),
          policy: () => ({ decision: "allow" as const }),
          store,
          taint: { writes: "allow" },
        });
        const calls = [
          ["fetch-allowed", `http://${HOST}:${port}/`, "200 served-to-mcp"],
          ["fetch-unlisted", "http://unlisted.example.org/", "403 docket refused"],
        ] as const;
        for (const [id, target, answer] of calls) {
          const result = await checkpoint.dispatch(
            { id, name: "api__get", arguments: JSON.stringify({ url: target }) },
            { sessionId: session.id },
          );
          expect(result.status === "ok" && JSON.stringify(result.output)).toContain(answer);
        }
        const recorded = (callId: string) =>
          trailConnections(store, { sessionId: session.id, callId });
        expect(await recorded("fetch-allowed")).toMatchObject([
          { host: HOST, decision: "allow", status: "closed", server: "api" },
        ]);
        expect(await recorded("fetch-unlisted")).toMatchObject([
          { host: "unlisted.example.org", rule: "no_rule", status: "refused", server: "api" },
        ]);
        // In the trail, not only the operator's log.
        expect(lines.map((line) => line.message).join("\n")).not.toContain("docket network:");
      } finally {
        await upstreams.close();
        await store.close();
        await signer.close();
      }
      const verify = await runDocket(["audit", "verify", "--store", url]);
      expect(verify.code, verify.stderr).toBe(0);
      await rm(dir, { recursive: true, force: true });
    },
  );
});
