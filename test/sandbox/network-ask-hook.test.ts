import { spawn } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { NETWORK_APPROVAL_TOOL } from "../../src/approval/durable-network-approver.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";
import { askingProjectYaml } from "./support/asking-project.js";
import { pendingApprovals, trailConnections } from "./support/trail-connections.js";

// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

// An ask network rule on a command a Claude Code hook contained (ADR 0069): the hook's answer
// rewrites the command into `docket hook exec --session … --call …`; the host's shell runs that
// line (real bwrap, real curl, a real server on 127.0.0.1 under a test host name); the ask waits
// in the store's queue as a request of the hooked call until bob answers from another channel.
const available = probeSandbox().status === "available";
const HOST = "asked-hook.docket-test.example";
const env = { BOB_TOKEN: "bob-secret-token-0123456789abcdef" };

let project: string;
let server: Server;
let port: number;

beforeAll(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), "docket-hook-ask-")));
  server = createServer((_req, res) => res.end("served-to-the-hooked-command"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  const yaml = askingProjectYaml({ ask: [HOST] }).replace("ask_timeout: 60s", "ask_timeout: 3s");
  await writeFile(join(project, "docket.yaml"), yaml);
  await mkdir(join(project, "home"), { recursive: true });
});

afterAll(async () => {
  server.close();
  await rm(project, { recursive: true, force: true });
});

// A process the way a host runs it: its stdin given, its output gathered, never thrown.
function run(
  file: string,
  args: readonly string[],
  input = "",
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(file, args, {
    cwd: project,
    env: { ...process.env, HOME: join(project, "home"), DOCKET_STORE: "", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk;
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk;
  });
  child.stdin.end(input);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

// What Claude Code does: asks the hook, then runs the command line the answer gave back.
async function hookedCurl(callId: string): Promise<string> {
  const payload = JSON.stringify({
    session_id: "s-hook-ask",
    cwd: project,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command: `curl -sSf http://${HOST}:${port}/` },
    tool_use_id: callId,
  });
  const asked = await run(process.execPath, [installedCliPath(), "hook", "claude-code"], payload);
  const answer = JSON.parse(asked.stdout) as {
    hookSpecificOutput: { permissionDecision: string; updatedInput?: { command: string } };
  };
  expect(answer.hookSpecificOutput.permissionDecision, asked.stderr).toBe("allow");
  const line = answer.hookSpecificOutput.updatedInput?.command ?? "";
  expect(line).toContain(` --session s-hook-ask --call ${callId} -- `);
  return line;
}

describe.skipIf(!available)("an ask network rule on a command a hook contained", () => {
  it("waits in the queue as the hooked call's request; bob's approval lets it through, an expiry refuses it", async () => {
    const store = await openStore(`sqlite:${join(project, ".docket", "docket.db")}`, {
      mustExist: false,
    });
    const directory = createApproverDirectory(
      { bob: { roles: ["lead"], token_env: "BOB_TOKEN" } },
      env,
    );
    try {
      const approvedLine = await hookedCurl("toolu_hook_ask_1");
      const approvedRun = run("bash", ["-c", approvedLine]);
      const queued = await pendingApprovals(store);
      expect(queued).toMatchObject([
        {
          tool: NETWORK_APPROVAL_TOOL,
          sessionId: "s-hook-ask",
          requestedBy: "claude-code",
          canonicalArgs: JSON.stringify({ host: HOST, port }),
        },
      ]);
      expect(queued[0]?.callId.startsWith("toolu_hook_ask_1/network/")).toBe(true);
      const decided = await decideApproval(store, directory, {
        approvalId: queued[0]?.id ?? "",
        decision: "approve",
        claim: { token: env.BOB_TOKEN },
      });
      expect(decided.status).toBe("decided");
      const approved = await approvedRun;
      expect(approved.stdout, approved.stderr).toContain("served-to-the-hooked-command");
      expect(approved.code).toBe(0);

      // Nobody answers the second: refused when ask_timeout (3 s) passes.
      const expired = await run("bash", ["-c", await hookedCurl("toolu_hook_ask_2")]);
      expect(expired.stdout).not.toContain("served-to-the-hooked-command");
      expect(expired.code).toBe(22);
      expect(expired.stderr).toContain("403");

      expect(await trailConnections(store, { callId: "toolu_hook_ask_1" })).toMatchObject([
        {
          host: HOST,
          decision: "ask",
          approval: "approved",
          approvedBy: "bob",
          approvalId: queued[0]?.id,
          status: "closed",
        },
      ]);
      expect(await trailConnections(store, { callId: "toolu_hook_ask_2" })).toMatchObject([
        { host: HOST, decision: "ask", approval: "timed_out", status: "refused" },
      ]);
    } finally {
      await store.close();
    }
    const verify = await run(process.execPath, [installedCliPath(), "audit", "verify"]);
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 120_000);
});
