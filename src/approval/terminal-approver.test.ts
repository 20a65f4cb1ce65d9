import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tool/define-tool.js";
import type { ApprovalRequest } from "./approval.js";
import { createTerminalApprover } from "./terminal-approver.js";

const tool = defineTool({
  name: "run_command",
  description: "Run a command.",
  input: z.object({ command: z.string() }),
  writes: true,
  handler: () => "",
});

const covers = "later run_command calls in this session with exactly these arguments";

function request(offered = false): ApprovalRequest {
  return {
    callId: "call_1",
    tool,
    args: { command: "rm -rf build\r" },
    canonicalArguments: '{"command":"rm -rf build\\r"}',
    argumentsHash: "ab".repeat(32),
    principal: "agent",
    sessionId: "ses_1",
    verdict: { decision: "ask", rule: "project:0", layer: "project", reason: "deletes files" },
    grant: offered
      ? { status: "offered", key: "cd".repeat(32), covers }
      : { status: "not_offered", reason: "run_command runs shell commands" },
    signal: new AbortController().signal,
  };
}

async function answer(lines: string[], options: { session?: boolean; offered?: boolean } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk) => {
    shown += String(chunk);
  });
  const approver = createTerminalApprover({
    as: "alice",
    input,
    output,
    canGrantSession: () => options.session ?? false,
  });
  const pending = approver(request(options.offered ?? options.session ?? false));
  for (const line of lines) input.write(`${line}\n`);
  input.end();
  return { result: await pending, shown };
}

describe("the terminal approver", () => {
  it("shows the tool, the exact arguments with control characters visible, the rule and the reason", async () => {
    const { result, shown } = await answer(["a"]);
    expect(result).toEqual({ decision: "approve", by: "alice", scope: "once" });
    expect(shown).toContain("Approval needed: run_command (writes)");
    expect(shown).toContain('"command": "rm -rf build\\u{000d}"');
    expect(shown).toContain("rule: project:0 [project]");
    expect(shown).toContain("reason: deletes files");
  });

  it("denies with a reason for the model, and re-asks on unclear input", async () => {
    const { result, shown } = await answer(["maybe", "d", "use the clean script instead"]);
    expect(result).toEqual({
      decision: "deny",
      by: "alice",
      reason: "use the clean script instead",
    });
    expect(shown).toContain("please answer");
  });

  it("offers approve-for-session only when allowed, and says exactly what it covers", async () => {
    const refused = await answer(["s", "a"]);
    expect(refused.result).toMatchObject({ scope: "once" });
    expect(refused.shown).toContain("no session grant: run_command runs shell commands");
    expect(refused.shown).not.toContain("[s]ession");
    const granted = await answer(["s"], { session: true });
    expect(granted.result).toMatchObject({ scope: "session" });
    expect(granted.shown).toContain(`[s]ession would also approve: ${covers}`);
  });

  it("never offers a session grant the request does not offer, whatever canGrantSession says", async () => {
    const { result, shown } = await answer(["s", "a"], { session: true, offered: false });
    expect(result).toMatchObject({ scope: "once" });
    expect(shown).not.toContain("[s]ession");
  });

  it("treats the end of input as a denial", async () => {
    expect((await answer([])).result).toMatchObject({
      decision: "deny",
      reason: "no answer at the terminal",
    });
  });
});
