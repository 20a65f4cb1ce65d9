import { spawn } from "node:child_process";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { NETWORK_APPROVAL_TOOL } from "../../src/approval/durable-network-approver.js";
import { sandboxCanRun } from "../../src/sandbox/network/visible-node.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import { connectWithBearer } from "../gateway/support/bearer-client.js";
import { dynamicServer, waitFor } from "../mcp/support/mcp-fixtures.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";
import { askingProjectYaml } from "./support/asking-project.js";
import { BOB_ENV } from "./support/asking-run.js";
import { pendingApprovals, trailConnections } from "./support/trail-connections.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

// `docket gateway` fronting a sandboxed MCP server whose network asks (ADR 0069): real bwrap, the
// server over stdio in the sandbox, a real HTTP client of the gateway, a real server on 127.0.0.1
// under a test host name; bob answers the queued request with his token while the call waits.
const available = probeSandbox().status === "available";
const repoInPrivateFolder = /^\/(tmp|run|var\/tmp)\//.test(
  new URL("../../", import.meta.url).pathname,
);
const HOST = "asked-gateway.docket-test.example";
const token = "gateway-network-ask-token-0123456789";

let dir: string;
let server: Server;
let port: number;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "docket-gw-ask-")));
  server = createServer((_req, res) => res.end("served-through-the-gateway"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.close();
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!available || repoInPrivateFolder || !sandboxCanRun(process.execPath))(
  "docket gateway: a sandboxed server's asked connection",
  () => {
    it("waits in the queue under the gateway call; bob's approval lets it through", async () => {
      const { command = process.execPath, args = [] } = dynamicServer();
      const config = join(dir, "docket.yaml");
      await writeFile(
        config,
        askingProjectYaml({
          ask: [HOST],
          server: { name: "api", command, args, tool: "api__get" },
        }),
      );
      const child = spawn(
        process.execPath,
        [installedCliPath(), "gateway", "--config", config, "--http", "0"],
        {
          cwd: dir,
          env: { ...process.env, ...BOB_ENV, DOCKET_GATEWAY_TOKEN: token },
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise((resolve) => child.once("exit", resolve));
      const store = await openStore(`sqlite:${join(dir, ".docket", "docket.db")}`, {
        mustExist: false,
      });
      try {
        await waitFor(() => /listening on (\S+)/.test(stderr), 60_000, "the gateway to listen");
        const url = /listening on (\S+)/.exec(stderr)?.[1] ?? "";
        const client = await connectWithBearer(url, token, "network-ask");
        const called = client.callTool({
          name: "api__get",
          arguments: { url: `http://${HOST}:${port}/` },
        }) as Promise<CallToolResult>;
        const [pending] = await pendingApprovals(store);
        expect(pending).toMatchObject({ tool: NETWORK_APPROVAL_TOOL });
        const outcome = await decideApproval(
          store,
          createApproverDirectory({ bob: { roles: ["lead"], token_env: "BOB_TOKEN" } }, BOB_ENV),
          {
            approvalId: pending?.id ?? "",
            decision: "approve",
            claim: { token: BOB_ENV.BOB_TOKEN },
          },
        );
        expect(outcome.status).toBe("decided");
        const result = await called;
        expect(JSON.stringify(result.content)).toContain("200 served-through-the-gateway");
        const callId = pending?.callId.split("/network/")[0] ?? "";
        expect(await trailConnections(store, { callId })).toMatchObject([
          { host: HOST, approval: "approved", approvedBy: "bob", approvalId: pending?.id },
        ]);
        await client.close();
      } finally {
        child.kill("SIGTERM");
        await exited;
        await store.close();
      }
    }, 120_000);
  },
);
