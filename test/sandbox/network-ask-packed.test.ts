import { execFile } from "node:child_process";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { decideApproval } from "../../src/approval/decide-approval.js";
import { probeSandbox } from "../../src/sandbox/probe-sandbox.js";
import { openStore } from "../../src/store/open-store.js";
import type { Store } from "../../src/store/store.js";
import { call, turn, writeScriptFile } from "../loop/support/model-script.js";
import { type PackedProject, packedDocket, runPacked } from "../support/packed-docket.js";
import { askingProjectYaml } from "./support/asking-project.js";
import { pendingApprovals, trailConnections } from "./support/trail-connections.js";

// What ships: the packed, installed CLI runs a command in the sandbox whose only way out is the
// proxy (its bootstrap's Node.js bound from where the sandbox can reach it), an allowed name
// goes through, an asked one waits in the approval queue until an approver decides with a token.
const available = probeSandbox().status === "available";
const ALLOWED = "allowed.docket-test.example";
const ASKED = "asked.docket-test.example";
const TOKEN = "packed-approver-token-0123456789";
const exec = promisify(execFile);

let project: PackedProject;
let cwd: string;
let server: Server;
let port: number;

beforeAll(async () => {
  if (!available) return;
  project = await packedDocket("lean");
  cwd = await realpath(await mkdtemp(join(tmpdir(), "docket-net-packed-")));
  server = createServer((req, res) => res.end(`served ${req.url}`));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
}, 900_000);

afterAll(async () => {
  server?.close();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

describe.skipIf(!available)("the packed CLI's sandbox network", () => {
  it("lets an allowed name through and holds an asked one for an approver's token", async () => {
    await writeFile(
      join(cwd, "docket.yaml"),
      askingProjectYaml({ allow: [ALLOWED], ask: [ASKED] }),
    );
    const command = `curl -sS http://${ALLOWED}:${port}/a; echo; curl -sS http://${ASKED}:${port}/b; echo`;
    const script = await writeScriptFile(cwd, [
      turn("Fetching.", call("c_packed", "run_command", { command })),
      turn("Done."),
    ]);
    const env = { BOB_TOKEN: TOKEN };
    const running = runPacked(project, ["run", "Fetch.", "--model", `scripted:${script}`], {
      cwd,
      env,
    });
    let store: Store | undefined;
    try {
      for (let i = 0; i < 600 && store === undefined; i += 1) {
        store = await openStore(`sqlite:${join(cwd, ".docket", "docket.db")}`, {
          mustExist: true,
        }).catch(() => undefined);
        if (store === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      if (store === undefined) throw new Error("the packed CLI made no store");
      const pending = await pendingApprovals(store);
      const directory = createApproverDirectory(
        { bob: { roles: ["lead"], token_env: "BOB_TOKEN" } },
        env,
      );
      const outcome = await decideApproval(store, directory, {
        approvalId: pending[0]?.id ?? "",
        decision: "approve",
        claim: { token: TOKEN },
      });
      expect(outcome.status).toBe("decided");
      const run = await running;
      expect(run.code, run.stderr).toBe(0);
      const connections = await trailConnections(store, { callId: "c_packed" });
      expect(connections.map((c) => [c.host, c.decision, c.approval, c.status])).toEqual([
        [ALLOWED, "allow", undefined, "closed"],
        [ASKED, "ask", "approved", "closed"],
      ]);
      expect(connections[1]?.approvalId).toBe(pending[0]?.id);
    } finally {
      await store?.close();
    }
  }, 120_000);

  it("holds a hook-contained command's asked name until `docket approvals approve` decides it", async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), "docket-net-packed-hook-")));
    try {
      await writeFile(join(dir, "docket.yaml"), askingProjectYaml({ ask: [ASKED] }));
      const env = { BOB_TOKEN: TOKEN };
      // What Claude Code does: asks the hook, then its shell runs the line the answer gave back.
      const payload = JSON.stringify({
        session_id: "s-packed-hook",
        cwd: dir,
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: `curl -sSf http://${ASKED}:${port}/hooked` },
        tool_use_id: "toolu_packed_hook",
      });
      const hooked = await runPacked(project, ["hook", "claude-code"], {
        cwd: dir,
        env,
        input: payload,
      });
      const answer = JSON.parse(hooked.stdout) as {
        hookSpecificOutput: { updatedInput?: { command: string } };
      };
      const line = answer.hookSpecificOutput.updatedInput?.command ?? "";
      expect(line, hooked.stderr).toContain(" --call toolu_packed_hook -- ");
      const running = exec("bash", ["-c", line], {
        cwd: dir,
        env: { ...process.env, HOME: dir, XDG_CONFIG_HOME: join(dir, ".config"), ...env },
      });
      const store = await openStore(`sqlite:${join(dir, ".docket", "docket.db")}`, {
        mustExist: true,
      });
      try {
        const pending = await pendingApprovals(store);
        expect(pending).toMatchObject([{ sessionId: "s-packed-hook", requestedBy: "claude-code" }]);
        const approved = await runPacked(
          project,
          ["approvals", "approve", pending[0]?.id ?? "", "--as", "bob"],
          { cwd: dir, env: { ...env, DOCKET_TOKEN: TOKEN } },
        );
        expect(approved.code, approved.stderr).toBe(0);
        const ran = await running;
        expect(ran.stdout).toBe("served /hooked");
        const connections = await trailConnections(store, { callId: "toolu_packed_hook" });
        expect(connections).toMatchObject([
          { host: ASKED, approval: "approved", approvedBy: "bob", approvalId: pending[0]?.id },
        ]);
      } finally {
        await store.close();
      }
      const verify = await runPacked(project, ["audit", "verify"], { cwd: dir, env });
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
