import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../store/open-store.js";
import type { Store } from "../store/store.js";
import { defineTool } from "../tool/define-tool.js";
import { createCheckpoint } from "./create-checkpoint.js";

// The decide-only path: the same checkpoint, its run step being the host's execution. A handler
// that would throw proves nothing of docket's ran.
const hostShell = defineTool({
  name: "run_command",
  description: "The host's shell",
  input: {
    type: "object",
    properties: { command: { type: "string" } },
    required: ["command"],
  },
  writes: true,
  policyArgs: { command: "command" },
  handler: () => {
    throw new Error("the host runs this");
  },
});

let dir: string;
let store: Store;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-host-call-"));
  store = await openStore(`sqlite:${join(dir, "docket.db")}`);
  await store.createSession({ id: "s1", principal: "claude-code", configHash: "x" });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function checkpointWith(decision: "allow" | "deny" | "ask") {
  return createCheckpoint({
    tools: [hostShell],
    store,
    policy: () => ({ decision, rule: `r-${decision}`, reason: `${decision} by test` }),
  });
}

async function types(): Promise<string[]> {
  return (await store.listEvents({ sessionId: "s1" })).map((record) => record.type);
}

describe("preflight and recordOutcome", () => {
  it("clears an allowed call, and records the host's outcome as its start and finish", async () => {
    const checkpoint = checkpointWith("allow");
    const call = { id: "toolu_1", name: "run_command", arguments: '{"command":"ls"}' };
    const verdict = await checkpoint.preflight(call, { sessionId: "s1" });
    expect(verdict).toMatchObject({ status: "cleared", callId: "toolu_1", rule: "r-allow" });
    expect(await types()).toEqual(["requested", "decided"]);
    await checkpoint.recordOutcome({
      callId: "toolu_1",
      name: "run_command",
      sessionId: "s1",
      status: "ok",
      output: { stdout: "a.txt\n" },
    });
    expect(await types()).toEqual(["requested", "decided", "started", "finished"]);
    expect((await store.verifyChain("s1")).ok).toBe(true);
  });

  it("refuses a denied call, and the same id never clears twice", async () => {
    const denied = await checkpointWith("deny").preflight(
      { id: "toolu_2", name: "run_command", arguments: '{"command":"rm -rf /"}' },
      { sessionId: "s1" },
    );
    expect(denied).toMatchObject({ status: "refused", reason: "denied" });
    const allow = checkpointWith("allow");
    const first = await allow.preflight(
      { id: "toolu_3", name: "run_command", arguments: '{"command":"ls"}' },
      { sessionId: "s1" },
    );
    expect(first.status).toBe("cleared");
    const again = await allow.preflight(
      { id: "toolu_3", name: "run_command", arguments: '{"command":"ls"}' },
      { sessionId: "s1" },
    );
    expect(again.status).not.toBe("cleared");
  });

  it("refuses unreadable and invalid arguments before deciding", async () => {
    const checkpoint = checkpointWith("allow");
    const unreadable = await checkpoint.preflight(
      { id: "toolu_4", name: "run_command", arguments: "{not json" },
      { sessionId: "s1" },
    );
    expect(unreadable).toMatchObject({ status: "refused", reason: "unreadable_arguments" });
    const invalid = await checkpoint.preflight(
      { id: "toolu_5", name: "run_command", arguments: '{"command":7}' },
      { sessionId: "s1" },
    );
    expect(invalid).toMatchObject({ status: "refused", reason: "invalid_arguments" });
  });

  it("an ask with no approver is refused, never cleared", async () => {
    const verdict = await checkpointWith("ask").preflight(
      { id: "toolu_6", name: "run_command", arguments: '{"command":"make"}' },
      { sessionId: "s1" },
    );
    expect(verdict).toMatchObject({ status: "refused", reason: "approval_required" });
  });

  it("records a host-approved ask as approved, started and finished", async () => {
    const checkpoint = createCheckpoint({
      tools: [hostShell],
      store,
      policy: () => ({ decision: "ask", rule: "r-ask" }),
      approvals: async () => ({ decision: "pending", approvalId: "host-prompt" }),
    });
    const verdict = await checkpoint.preflight(
      { id: "toolu_7", name: "run_command", arguments: '{"command":"make"}' },
      { sessionId: "s1" },
    );
    expect(verdict.status).toBe("awaiting_approval");
    await checkpoint.recordOutcome({
      callId: "toolu_7",
      name: "run_command",
      sessionId: "s1",
      status: "failed",
      output: "make: *** No targets",
      approvedBy: "claude-code:prompt",
    });
    const recorded = await types();
    expect(recorded.slice(-3)).toEqual(["approved", "started", "finished"]);
  });

  it("records a call the host's prompt refused once, and never over a call that ran", async () => {
    const checkpoint = createCheckpoint({
      tools: [hostShell],
      store,
      policy: () => ({ decision: "ask", rule: "r-ask" }),
      approvals: async () => ({ decision: "pending", approvalId: "host:claude-code" }),
    });
    for (const id of ["toolu_8", "toolu_9"]) {
      await checkpoint.preflight(
        { id, name: "run_command", arguments: '{"command":"make"}' },
        { sessionId: "s1" },
      );
    }
    await checkpoint.recordOutcome({
      callId: "toolu_9",
      name: "run_command",
      sessionId: "s1",
      status: "ok",
      output: "built",
      approvedBy: "claude-code:prompt",
    });
    const refusal = {
      name: "run_command",
      sessionId: "s1",
      status: "refused",
      refusedBy: "claude-code:prompt",
      message: "the session ended before it reported running it",
    } as const;
    for (const callId of ["toolu_8", "toolu_8", "toolu_9"]) {
      await checkpoint.recordOutcome({ ...refusal, callId });
    }
    const events = await store.listEvents({ sessionId: "s1" });
    const of = (id: string) => events.filter((e) => e.callId === id).map((e) => e.type);
    expect(of("toolu_8").slice(-3)).toEqual(["awaiting_approval", "approval_denied", "refused"]);
    expect(of("toolu_9").slice(-3)).toEqual(["approved", "started", "finished"]);
    expect(await store.callOutcome("s1", "toolu_8")).toMatchObject({
      kind: "refused",
      reason: "approval_denied",
      message: refusal.message,
    });
    expect((await store.verifyChain("s1")).ok).toBe(true);
  });
});
