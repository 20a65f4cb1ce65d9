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
import { builtinTools, createCheckpoint, createMemoryEventSink } from "../../src/index.js";
import type { NetworkConnection } from "../../src/sandbox/network/network-connection.js";
import { readNetworkConnection } from "../../src/sandbox/network/read-network-connection.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { tempDir } from "../loop/support/temp-dir.js";
import { askingProjectYaml } from "./support/asking-project.js";
import { BOB_ENV, startAskingRun } from "./support/asking-run.js";
import { pendingApprovals } from "./support/trail-connections.js";

// An ask network rule through the same approval queue as a tool call: real bwrap, real curl, a
// real server on 127.0.0.1, a real SQLite store; a person decides from another channel while the
// connection waits.
const available = probeSandbox().status === "available";
const HOST = "asked.docket-test.example";
const directory = createApproverDirectory(
  { alice: { roles: ["lead"] }, agent: { roles: ["lead"] } },
  {},
);

let dir: string;
let workspace: string;
let store: Store;
let server: Server;
let port: number;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "docket-net-ask-")));
  workspace = join(dir, "ws");
  await import("node:fs/promises").then((fs) => fs.mkdir(workspace));
  store = await openStore(`sqlite:${join(dir, "docket.db")}`);
  server = createServer((_req, res) => res.end("answered-after-approval"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** Run curl twice in one sandboxed call, deciding each queued ask with `decide`. */
async function askTwice(
  decide: (approvalId: string, turn: number) => Promise<unknown>,
  askTimeoutMs = 30_000,
) {
  const session = await store.createSession({ principal: "agent", configHash: "test" });
  const events = createMemoryEventSink();
  let turn = 0;
  // Every answer's outcome is awaited before the caller asserts on it: under load an answer can
  // still be in flight when the command ends.
  const answers: Promise<unknown>[] = [];
  const networkApprover = createDurableNetworkApprover({
    store,
    directory,
    defaultApprovers: ["role:lead"],
    pollMs: 25,
    expiresMs: askTimeoutMs,
    // Another channel (the HTTP API, `docket approvals`) answers once the request is queued.
    onPending: (approval) => void answers.push(decide(approval.id, turn++)),
  });
  const checkpoint = createCheckpoint({
    tools: builtinTools({
      workspace,
      run: {
        sandbox: {
          network: {
            rules: [{ name: "project", ask: [HOST] }],
            hosts: { [HOST]: "127.0.0.1" },
            askTimeoutMs,
          },
        },
        networkApprover,
      },
    }),
    policy: () => ({ decision: "allow" as const, rule: "allow-all" }),
    events,
  });
  const callId = `net_ask_${session.id}`;
  const result = await checkpoint.dispatch(
    {
      id: callId,
      name: "run_command",
      arguments: JSON.stringify({
        command: `curl -sS http://${HOST}:${port}/one; echo; curl -sS http://${HOST}:${port}/two; echo`,
        timeout_ms: 60_000,
      }),
    },
    { principal: "agent", sessionId: session.id },
  );
  await Promise.all(answers);
  const connections: NetworkConnection[] = events.forCall(callId).flatMap((event) => {
    const connection = readNetworkConnection(event);
    return connection ? [connection] : [];
  });
  return { sessionId: session.id, callId, result, output: String(result.output), connections };
}

describe.skipIf(!available)("an ask network rule as a durable approval", () => {
  it("waits in the queue, bound to host, port, call and session; an approval lets one connection through", async () => {
    const { sessionId, callId, output, connections } = await askTwice((approvalId, turn) =>
      decideApproval(store, directory, {
        approvalId,
        decision: turn === 0 ? "approve" : "deny",
        reason: turn === 0 ? "the docs host" : "once was enough",
        claim: { name: "alice" },
        terminal: true,
      }),
    );
    expect(output.match(/answered-after-approval/g)).toHaveLength(1);
    expect(output).toContain("once was enough");
    expect(connections.map((c) => [c.decision, c.approval, c.status, c.approvedBy])).toEqual([
      ["ask", "approved", "closed", "alice"],
      ["ask", "denied", "refused", "alice"],
    ]);
    const queued = await store.listApprovals({ sessionId });
    expect(queued).toHaveLength(2);
    for (const approval of queued) {
      expect(approval).toMatchObject({
        tool: NETWORK_APPROVAL_TOOL,
        canonicalArgs: JSON.stringify({ host: HOST, port }),
        requestedBy: "agent",
        sessionId,
        rule: `project:ask:${HOST}`,
        decidedBy: "alice",
      });
      expect(approval.callId.startsWith(`${callId}/network/`)).toBe(true);
    }
    // Each connection's trail record names the request that was decided for it.
    expect(new Set(connections.map((c) => c.approvalId))).toEqual(new Set(queued.map((a) => a.id)));
    const decided = (await store.listEvents({ sessionId })).filter((e) =>
      ["approved", "approval_denied"].includes(e.event.type),
    );
    expect(decided).toHaveLength(2);
  });

  it("refuses the requesting agent's own answer, and the connection with it once the ask expires", async () => {
    const attempts: string[] = [];
    const { output, connections } = await askTwice(async (approvalId) => {
      const outcome = await decideApproval(store, directory, {
        approvalId,
        decision: "approve",
        claim: { name: "agent" },
        terminal: true,
      });
      attempts.push(outcome.status);
    }, 1_500);
    expect(attempts).toEqual(["forbidden", "forbidden"]);
    expect(output).not.toContain("answered-after-approval");
    expect(connections.map((c) => [c.approval, c.status])).toEqual([
      ["timed_out", "refused"],
      ["timed_out", "refused"],
    ]);
  });

  it("holds through docket run: the run waits, an approver decides with a token, the trail has both", async () => {
    const cwd = await realpath(await tempDir());
    await writeFile(join(cwd, "docket.yaml"), askingProjectYaml({ ask: [HOST] }));
    const env = BOB_ENV;
    const { running, store: cliStore } = await startAskingRun(cwd, "c_ask", "run_command", {
      command: `curl -sS http://${HOST}:${port}/`,
    });
    try {
      const cliDirectory = createApproverDirectory(
        { bob: { roles: ["lead"], token_env: "BOB_TOKEN" } },
        env,
      );
      const queued = await pendingApprovals(cliStore);
      expect(queued).toMatchObject([{ tool: NETWORK_APPROVAL_TOOL, requestedBy: "agent" }]);
      const outcome = await decideApproval(cliStore, cliDirectory, {
        approvalId: queued[0]?.id ?? "",
        decision: "approve",
        claim: { token: env.BOB_TOKEN },
      });
      expect(outcome.status).toBe("decided");
      const run = await running;
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(`waits for approval ${queued[0]?.id}`);
      const connections = (await cliStore.listEvents({ callId: "c_ask" })).flatMap((record) => {
        const connection = readNetworkConnection(record.event as { type: string });
        return connection ? [connection] : [];
      });
      expect(connections).toMatchObject([
        {
          host: HOST,
          approval: "approved",
          approvedBy: "bob",
          approvalId: queued[0]?.id,
          status: "closed",
        },
      ]);
    } finally {
      await cliStore.close();
    }
  });
});
