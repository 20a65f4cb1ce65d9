import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStoreTrail } from "../../src/audit/verify-store-trail.js";
import type { HookReply } from "../../src/hook/hook-answer.js";
import { openStore } from "../../src/store/open-store.js";
import { type HookFixture, hookFixture } from "../support/hook-fixture.js";

// A tool_use_id is the host's (the model's): one reused for another call is refused whatever
// the call on record is waiting for, and the trail still verifies.
let f: HookFixture;

beforeAll(async () => {
  f = await hookFixture("reused-id", [
    "policy:",
    "  rules:",
    "    - { id: ask-writes, tool: write_file, decision: ask }",
    "    - { id: shell-ok, tool: run_command, decision: allow }",
    "hooks:",
    "  ask: host",
  ]);
});
afterAll(async () => {
  await f?.remove();
});

const pre = (session: string, tool: string, input: unknown, id: string) => ({
  session_id: session,
  hook_event_name: "PreToolUse",
  tool_name: tool,
  tool_input: input,
  tool_use_id: id,
});
const decisionOf = (reply: HookReply) =>
  (
    JSON.parse(reply.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    }
  ).hookSpecificOutput;

describe("a reused tool_use_id through the Claude Code hook", () => {
  it("is denied for another tool while the first call waits on the host's prompt", async () => {
    const write = { file_path: "/tmp/x.txt", content: "hi" };
    const asked = await f.hook("claude-code", pre("s1", "Write", write, "dup2"));
    expect(decisionOf(asked).permissionDecision).toBe("ask");

    const reused = await f.hook("claude-code", pre("s1", "Bash", { command: "ls -a" }, "dup2"));
    const answer = decisionOf(reused);
    expect(answer.permissionDecision).toBe("deny");
    expect(answer.permissionDecisionReason).toMatch(
      /"dup2" was already used in this session by a different call \(to write_file\).*new call needs an id of its own/,
    );
    // The same Write again is still the call on record: asked, as before.
    const again = await f.hook("claude-code", pre("s1", "Write", write, "dup2"));
    expect(decisionOf(again).permissionDecision).toBe("ask");
    // Other arguments under the id are refused as well.
    const other = await f.hook(
      "claude-code",
      pre("s1", "Write", { ...write, content: "bye" }, "dup2"),
    );
    expect(decisionOf(other).permissionDecision).toBe("deny");
    expect(decisionOf(other).permissionDecisionReason).toMatch(/with other arguments/);

    const store = await openStore(f.storeUrl, { readOnly: true });
    try {
      const calls = await store.listCalls({ sessionId: "s1" });
      expect(calls.map((call) => [call.callId, call.tool, call.decision])).toEqual([
        ["dup2", "write_file", "ask"],
      ]);
      const events = await store.listEvents({ sessionId: "s1" });
      const bash = events.filter((event) => event.tool === "run_command");
      // Refused on the trail, never decided.
      expect(bash.map((event) => event.type)).toEqual(["requested", "refused"]);
      const report = await verifyStoreTrail(store, { sessionId: "s1" });
      expect(report.problems).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
