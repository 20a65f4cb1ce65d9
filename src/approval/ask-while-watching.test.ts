import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { defineTool } from "../tool/define-tool.js";
import type { ApprovalRequest } from "./approval.js";
import { createApproverDirectory, hashToken } from "./approver-directory.js";
import { decideApproval } from "./decide-approval.js";
import { createDurableApprover } from "./durable-approver.js";
import { createTerminalApprover } from "./terminal-approver.js";

// A terminal and another channel deciding the same request: the first decision wins, the
// terminal's question ends at once when it loses, and its person is told who decided.

const directory = createApproverDirectory(
  { alice: { roles: ["lead"] }, bob: { roles: ["lead"], token_sha256: hashToken("b") } },
  {},
);
const tool = defineTool({
  name: "write_file",
  description: "Write a file.",
  input: z.object({ path: z.string() }),
  writes: true,
  handler: () => "",
});
let dir: string;
let store: Store;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-ask-watch-"));
  store = await openStore(`sqlite:${join(dir, "docket.db")}`);
});
afterAll(async () => {
  await store?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function request(callId: string): ApprovalRequest {
  return {
    callId,
    tool,
    toolName: tool.name,
    args: { path: "a.txt" },
    canonicalArguments: '{"path":"a.txt"}',
    argumentsHash: "ab".repeat(32),
    principal: "agent",
    sessionId: "ses_race",
    verdict: { decision: "ask", rule: "default:writes", reason: "writes" },
    grant: { status: "not_offered", reason: "test" },
    signal: new AbortController().signal,
  };
}

const bobDecides = async (decision: "approve" | "deny") => {
  const [pending] = await store.listApprovals({ status: "pending" });
  if (!pending) throw new Error("no pending request");
  return decideApproval(store, directory, {
    approvalId: pending.id,
    decision,
    reason: `bob: ${decision}`,
    claim: { name: "bob", token: "b" },
  });
};

describe("the terminal racing another channel", () => {
  it("a decision elsewhere ends the open question at once and says who decided", async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = "";
    output.on("data", (chunk) => {
      shown += String(chunk);
    });
    const approvals = createDurableApprover({
      store,
      directory,
      mode: "wait",
      pollMs: 20,
      interactive: createTerminalApprover({ as: "alice", input, output }),
      tellInteractive: (text) => output.write(text),
    });
    const answer = Promise.resolve(approvals(request("call_elsewhere")));
    while (!shown.includes("[d]eny?")) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await bobDecides("deny")).status).toBe("decided");
    const started = Date.now();
    expect(await answer).toMatchObject({ decision: "deny", by: "bob", reason: "bob: deny" });
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(shown).toContain("denied elsewhere by bob (bob: deny): the question here is closed.");
  });

  it("an answer typed after someone else decided is not used, and the terminal is told so", async () => {
    const told: string[] = [];
    const approvals = createDurableApprover({
      store,
      directory,
      mode: "wait",
      // Long enough that the terminal's answer arrives before the store is read again.
      pollMs: 60_000,
      interactive: async () => {
        await bobDecides("approve");
        return { decision: "deny", by: "alice", reason: "no" };
      },
      tellInteractive: (text) => told.push(text),
    });
    expect(await approvals(request("call_late"))).toMatchObject({
      decision: "approve",
      by: "bob",
    });
    expect(told.join("")).toContain(
      "your answer (deny) was not used: approved elsewhere by bob (bob: approve) first.",
    );
  });
});
