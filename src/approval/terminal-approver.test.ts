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
    toolName: tool.name,
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

async function answer(
  lines: string[],
  options: {
    session?: boolean;
    offered?: boolean;
    extra?: Partial<Parameters<typeof createTerminalApprover>[0]>;
    verdict?: Partial<ApprovalRequest["verdict"]>;
  } = {},
) {
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
    ...options.extra,
  });
  const base = request(options.offered ?? options.session ?? false);
  const pending = approver({ ...base, verdict: { ...base.verdict, ...options.verdict } });
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

  it("shows the change a call would make, and the sub-commands no rule covered", async () => {
    const { shown } = await answer(["a"], {
      extra: { preview: async () => "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\u001b[2J\n+new\n" },
      verdict: {
        shell: {
          uncovered: [{ argv: ["make"], program: "make", text: "make", depth: 0, via: [] }],
          asked: [],
          uncertainties: [],
        },
      },
    });
    expect(shown).toContain(
      "  change:\n    --- a/x\n    +++ b/x\n    @@ -1 +1 @@\n    -old\\u{001b}[2J\n    +new\n",
    );
    expect(shown).toContain('no rule covers: "make"');
  });

  it("offers 'always allow' only when the channel does, and approves once after writing the rule", async () => {
    const accepted: string[] = [];
    const offered = await answer(["r"], {
      extra: {
        alwaysAllow: async () => ({
          status: "offered",
          covers: 'run_command commands matching "make all *"',
          file: "docket.yaml",
          accept: async (by) => {
            accepted.push(by);
            return "always-make";
          },
        }),
      },
    });
    expect(offered.shown).toContain("always allow with a [r]ule");
    expect(offered.shown).toContain("added rule always-make to docket.yaml");
    expect(offered.result).toEqual({
      decision: "approve",
      by: "alice",
      scope: "once",
      reason: "always allowed: rule always-make added to docket.yaml",
    });
    expect(accepted).toEqual(["alice"]);

    const refused = await answer(["r", "a"], {
      extra: { alwaysAllow: async () => ({ status: "not_offered", reason: "bash runs anything" }) },
    });
    expect(refused.shown).not.toContain("[r]ule");
    expect(refused.shown).toContain('no "always allow": bash runs anything');
    expect(refused.result).toMatchObject({ decision: "approve", scope: "once" });
    expect(refused.result).not.toHaveProperty("reason");
  });

  it("asks again when the rule cannot be written, and a failing preview never blocks the question", async () => {
    const { result, shown } = await answer(["r", "d", "no"], {
      extra: {
        preview: async () => {
          throw new Error("disk on fire");
        },
        alwaysAllow: async () => ({
          status: "offered",
          covers: "x",
          file: "docket.yaml",
          accept: async () => {
            throw new Error("read-only file system");
          },
        }),
      },
    });
    expect(shown).toContain("could not add the rule: read-only file system");
    expect(result).toMatchObject({ decision: "deny", reason: "no" });
  });
});
