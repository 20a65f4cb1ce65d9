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

function request(): ApprovalRequest {
  return {
    callId: "call_1",
    tool,
    args: { command: "rm -rf build\r" },
    canonicalArguments: '{"command":"rm -rf build\\r"}',
    argumentsHash: "ab".repeat(32),
    principal: "agent",
    sessionId: "ses_1",
    verdict: { decision: "ask", rule: "project:0", layer: "project", reason: "deletes files" },
    signal: new AbortController().signal,
  };
}

async function answer(lines: string[], options: { session?: boolean } = {}) {
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
  const pending = approver(request());
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

  it("offers approve-for-session only when allowed", async () => {
    expect((await answer(["s", "a"])).result).toMatchObject({ scope: "once" });
    expect((await answer(["s"], { session: true })).result).toMatchObject({ scope: "session" });
  });

  it("treats the end of input as a denial", async () => {
    expect((await answer([])).result).toMatchObject({
      decision: "deny",
      reason: "no answer at the terminal",
    });
  });
});
