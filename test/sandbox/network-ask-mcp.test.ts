import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { decideApproval } from "../../src/approval/decide-approval.js";
import {
  createDurableNetworkApprover,
  NETWORK_APPROVAL_TOOL,
} from "../../src/approval/durable-network-approver.js";
import { type AuditSigner, createAuditSigner } from "../../src/audit/create-audit-signer.js";
import { createCallsInFlight } from "../../src/mcp/calls-in-flight.js";
import { connectMcpServers } from "../../src/mcp/connect-mcp-servers.js";
import { createLiveCheckpoint } from "../../src/mcp/live-checkpoint.js";
import { ProcessTransport } from "../../src/mcp/process-transport.js";
import type { NetworkConnection } from "../../src/sandbox/network/network-connection.js";
import { sandboxCanRun } from "../../src/sandbox/network/visible-node.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { dynamicServer, memoryLog, waitFor } from "../mcp/support/mcp-fixtures.js";
import { runDocket } from "../support/run-docket.js";
import { askingProjectYaml } from "./support/asking-project.js";
import { BOB_ENV, startAskingRun } from "./support/asking-run.js";
import { pendingApprovals, trailConnections } from "./support/trail-connections.js";

// An ask network rule on a sandboxed MCP server's connection (ADR 0069): real bubblewrap, a real
// MCP server over stdio in the sandbox fetching through docket's proxy from a real server on
// 127.0.0.1 under a test host name, a real signed SQLite store whose queue a person answers.
const available = probeSandbox().status === "available";
const repoInPrivateFolder = /^\/(tmp|run|var\/tmp)\//.test(
  new URL("../../", import.meta.url).pathname,
);
const nodeOutOfReach = !sandboxCanRun(process.execPath);
const HOST = "asked-mcp.docket-test.example";
const directory = createApproverDirectory(
  { alice: { roles: ["lead"] }, agent: { roles: ["lead"] } },
  {},
);

let dir: string;
let url: string;
let store: Store;
let signer: AuditSigner;
let server: Server;
let port: number;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "docket-mcp-ask-")));
  url = `sqlite:${join(dir, "docket.db")}`;
  // The key in this test's own folder, never the machine user's (~/.config/docket).
  signer = await createAuditSigner({ env: { XDG_CONFIG_HOME: join(dir, "config") } });
  store = await openStore(url, { signer });
  server = createServer((_req, res) => res.end("served-after-approval"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.close();
  await store.close();
  await signer.close();
  await rm(dir, { recursive: true, force: true });
});

const recorded = (sessionId: string, callId: string) =>
  trailConnections(store, { sessionId, callId });

describe.skipIf(!available || repoInPrivateFolder || nodeOutOfReach)(
  "an ask network rule on a sandboxed MCP server",
  () => {
    it("queues the ask under the call in flight; an approval lets it through, an expiry refuses it", async () => {
      const session = await store.createSession({ principal: "agent", configHash: "" });
      let decide = true;
      const networkApprover = createDurableNetworkApprover({
        store,
        directory,
        defaultApprovers: ["role:lead"],
        pollMs: 25,
        expiresMs: 1_500,
        // Another channel answers once the request is queued (or, the second time, nobody does).
        onPending: (approval) => {
          if (!decide) return;
          void decideApproval(store, directory, {
            approvalId: approval.id,
            decision: "approve",
            claim: { name: "alice" },
            terminal: true,
          });
        },
      });
      const workspace = join(dir, "ws");
      await import("node:fs/promises").then((fs) => fs.mkdir(workspace, { recursive: true }));
      const { log } = memoryLog();
      const upstreams = await connectMcpServers(
        {
          servers: {
            api: dynamicServer({
              cwd: workspace,
              sandbox: {
                network: { ask: [HOST], hosts: { [HOST]: "127.0.0.1" }, ask_timeout: "1500ms" },
              },
            }),
          },
        },
        { log, sandbox: { settings: {}, workspace }, networkApprover },
      );
      try {
        const checkpoint = createLiveCheckpoint({
          tools: () => upstreams.tools(),
          policy: () => ({ decision: "allow" as const }),
          store,
          taint: { writes: "allow" },
        });
        const fetch = (id: string) =>
          checkpoint.dispatch(
            { id, name: "api__get", arguments: JSON.stringify({ url: `http://${HOST}:${port}/` }) },
            { sessionId: session.id, principal: "agent" },
          );
        const approved = await fetch("mcp-ask-approved");
        expect(approved.status === "ok" && JSON.stringify(approved.output)).toContain(
          "200 served-after-approval",
        );
        decide = false;
        const expired = await fetch("mcp-ask-expired");
        expect(expired.status === "ok" && JSON.stringify(expired.output)).toContain(
          "403 docket refused",
        );
        const queued = await store.listApprovals({ sessionId: session.id });
        const byCall = (callId: string) => queued.find((a) => a.callId.startsWith(`${callId}/`));
        expect(byCall("mcp-ask-approved")).toMatchObject({
          tool: NETWORK_APPROVAL_TOOL,
          canonicalArgs: JSON.stringify({ host: HOST, port }),
          requestedBy: "agent",
          decidedBy: "alice",
          rule: `mcp.api:ask:${HOST}`,
        });
        expect(byCall("mcp-ask-expired")).toMatchObject({ tool: NETWORK_APPROVAL_TOOL });
        expect(await recorded(session.id, "mcp-ask-approved")).toMatchObject([
          {
            host: HOST,
            decision: "ask",
            approval: "approved",
            approvedBy: "alice",
            approvalId: byCall("mcp-ask-approved")?.id,
            status: "closed",
            server: "api",
          },
        ]);
        expect(await recorded(session.id, "mcp-ask-expired")).toMatchObject([
          { host: HOST, decision: "ask", approval: "timed_out", status: "refused", server: "api" },
        ]);
      } finally {
        await upstreams.close();
      }
      // Signed now: the store is still open, and a tail it has not signed yet is "not proven".
      await store.attest();
      const verify = await runDocket(["audit", "verify", "--store", url], {
        env: { XDG_CONFIG_HOME: join(dir, "config") },
      });
      expect(verify.code, verify.stderr).toBe(0);
    });

    it("refuses, without asking anyone, a connection the server opens while serving no call", async () => {
      const asked: string[] = [];
      const calls = createCallsInFlight("api");
      const connections: NetworkConnection[] = [];
      const stderr: string[] = [];
      const transport = new ProcessTransport({
        command: "sh",
        args: ["-c", `curl -sS http://${HOST}:${port}/ 1>&2; echo; echo done 1>&2; sleep 30`],
        sandbox: {
          network: { rules: [{ name: "mcp.api", ask: [HOST] }], hosts: { [HOST]: "127.0.0.1" } },
          settings: {},
          workspace: dir,
        },
        onStderr: (line) => stderr.push(line),
        onNetworkConnection: (connection) => connections.push(connection),
        networkApprover: calls.approver(async (request) => {
          asked.push(request.host);
          return true;
        }),
      });
      await transport.start();
      try {
        await waitFor(() => stderr.includes("done") && connections.length === 1, 20_000);
        expect(stderr.join("\n")).not.toContain("served-after-approval");
        expect(asked).toEqual([]);
        expect(connections).toMatchObject([
          { host: HOST, decision: "ask", approval: "denied", status: "refused" },
        ]);
        expect(connections[0]?.reason).toContain("serving no call");
      } finally {
        await transport.close();
      }
    });

    it("holds through docket run: the run's MCP server waits, an approver decides with a token", async () => {
      const cwd = await realpath(await tempDir());
      const { command = process.execPath, args = [] } = dynamicServer();
      await writeFile(
        join(cwd, "docket.yaml"),
        askingProjectYaml({
          ask: [HOST],
          server: { name: "api", command, args, tool: "api__get" },
        }),
      );
      const env = BOB_ENV;
      const { running, store: cliStore } = await startAskingRun(cwd, "c_mcp_ask", "api__get", {
        url: `http://${HOST}:${port}/`,
      });
      try {
        const queued = await pendingApprovals(cliStore);
        expect(queued).toMatchObject([{ tool: NETWORK_APPROVAL_TOOL, requestedBy: "agent" }]);
        expect(queued[0]?.callId.startsWith("c_mcp_ask/network/")).toBe(true);
        const outcome = await decideApproval(
          cliStore,
          createApproverDirectory({ bob: { roles: ["lead"], token_env: "BOB_TOKEN" } }, env),
          { approvalId: queued[0]?.id ?? "", decision: "approve", claim: { token: env.BOB_TOKEN } },
        );
        expect(outcome.status).toBe("decided");
        const run = await running;
        expect(run.code, run.stderr).toBe(0);
        expect(await trailConnections(cliStore, { callId: "c_mcp_ask" })).toMatchObject([
          { host: HOST, approval: "approved", approvedBy: "bob", approvalId: queued[0]?.id },
        ]);
      } finally {
        await cliStore.close();
      }
    }, 120_000);
  },
);
