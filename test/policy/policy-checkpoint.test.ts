import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createCheckpoint } from "../../src/checkpoint/create-checkpoint.js";
import { createMemoryEventSink } from "../../src/checkpoint/memory-event-sink.js";
import { createPolicyEngine } from "../../src/policy/policy-engine.js";
import { defineTool } from "../../src/tool/define-tool.js";

describe("the engine as the checkpoint's policy", () => {
  it("denies, asks with approvers and allows real calls through dispatch", async () => {
    const ran: string[] = [];
    const runCommand = defineTool({
      name: "run_command",
      description: "Run a shell command.",
      input: z.object({ command: z.string() }),
      writes: true,
      policyArgs: { command: "command" },
      handler: ({ command }) => {
        ran.push(command);
        return "ok";
      },
    });
    const engine = await createPolicyEngine({
      layers: [
        {
          name: "project",
          rules: [
            { decision: "deny", tool: "run_command", command: "rm *", reason: "no deletions" },
            { decision: "allow", tool: "run_command", command: "ls *" },
            { decision: "ask", tool: "run_command", command: "make *", approvers: ["role:lead"] },
          ],
        },
      ],
    });
    const asked: unknown[] = [];
    const checkpoint = createCheckpoint({
      tools: [runCommand],
      policy: engine,
      events: createMemoryEventSink(),
      approvals: (request) => {
        asked.push(request);
        return { decision: "approve", by: "lead@example.com" };
      },
    });
    const denied = await checkpoint.dispatch({
      id: "c1",
      name: "run_command",
      arguments: '{"command":"ls && rm -rf /"}',
    });
    expect(denied).toMatchObject({ status: "refused", reason: "denied", rule: "project:0" });
    expect(denied.message).toContain("no deletions");
    expect(
      await checkpoint.dispatch({
        id: "c2",
        name: "run_command",
        arguments: '{"command":"ls -la"}',
      }),
    ).toMatchObject({ status: "ok" });
    expect(
      await checkpoint.dispatch({
        id: "c3",
        name: "run_command",
        arguments: '{"command":"make build"}',
      }),
    ).toMatchObject({ status: "ok" });
    expect(asked).toHaveLength(1);
    expect(ran).toEqual(["ls -la", "make build"]);
  });
});
