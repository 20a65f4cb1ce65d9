import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HookReply } from "../../src/hook/hook-answer.js";
import { type HookFixture, hookFixture } from "../support/hook-fixture.js";

// Allow rules see through wrappers at the hook entry point too; a read is not allowed by the
// reads default there, since docket does not contain what the host runs (ADR 0033).
let f: HookFixture;

beforeAll(async () => {
  f = await hookFixture("wrappers", [
    "policy:",
    "  rules:",
    "    - { id: no-rm, tool: run_command, command: 'rm *', decision: deny }",
    "    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }",
  ]);
});
afterAll(async () => {
  await f?.remove();
});

const bash = async (command: string, id: string): Promise<string> => {
  const reply: HookReply = await f.hook("claude-code", {
    session_id: "cc-wrappers",
    transcript_path: "/tmp/t.jsonl",
    cwd: f.dir,
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: id,
  });
  return (JSON.parse(reply.stdout) as { hookSpecificOutput: { permissionDecision: string } })
    .hookSpecificOutput.permissionDecision;
};

describe("docket hook claude-code: wrappers and reads", () => {
  it("allows a wrapper around allowed commands and keeps a deny inside one", async () => {
    expect(await bash("timeout 5 ls -la", "w1")).toBe("allow");
    expect(await bash("bash -lc 'ls src && ls test'", "w2")).toBe("allow");
    expect(await bash("bash -lc 'ls; rm -rf /'", "w3")).toBe("deny");
    expect(await bash("env A=1 rm -rf build", "w4")).toBe("deny");
  });

  it("asks a read no rule allows: the host's shell is not docket's sandbox", async () => {
    expect(await bash("git status --short", "w5")).toBe("ask");
  });
});
