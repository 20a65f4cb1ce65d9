import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApproverDirectory } from "../../src/approval/approver-directory.js";
import { approvalIdFor, decideApproval } from "../../src/approval/decide-approval.js";
import type { HookReply } from "../../src/hook/hook-answer.js";
import { privateSocketFolderPath } from "../../src/hook/hook-socket.js";
import type { HostName } from "../../src/hook/host-registry.js";
import { runHook } from "../../src/hook/run-hook.js";
import { openStore } from "../../src/store/open-store.js";
import { type HookFixture, hookFixture } from "../support/hook-fixture.js";

// Payloads in each host's documented shape:
// - Claude Code: docs.anthropic.com/en/docs/claude-code/hooks ("PreToolUse Input": session_id,
//   transcript_path, cwd, permission_mode, hook_event_name, tool_name, tool_input, tool_use_id;
//   "PostToolUse Input" adds tool_response; output hookSpecificOutput.permissionDecision).
// - gemini-cli 0.61: geminicli.com/docs/hooks/reference (BeforeTool/AfterTool: tool_name,
//   tool_input, tool_response; output `decision` allow|deny|ask, `reason`), and its bundle's
//   fireBeforeToolEvent, which sends no call id.
// - Codex CLI 0.171: the `pre-tool-use.command.input` schema in its binary (session_id, turn_id,
//   tool_name, tool_use_id, tool_input, cwd, model, permission_mode, transcript_path); it rejects
//   `permissionDecision: allow` without updatedInput and `ask`.
// - opencode: the payload docket's own plugin sends (plugins/opencode/docket.js).
let f: HookFixture;
let dir: string;
let storeUrl: string;

beforeAll(async () => {
  f = await hookFixture("hosts", [
    "policy:",
    "  rules:",
    "    - { id: no-rm, tool: run_command, command: 'rm *', decision: deny }",
    "    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }",
    "    - { id: make-asks, tool: run_command, command: 'make *', decision: ask }",
    "    - { id: env-secret, tool: read_file, path: '**/.env', decision: deny }",
    "    - { id: reads-ok, tool: read_file, decision: allow }",
    "    - { id: gh-ok, tool: 'github__*', decision: allow }",
    "hooks:",
    "  wait: 300ms",
  ]);
  ({ dir, storeUrl } = f);
});
afterAll(async () => {
  await f?.remove();
});

const hook = (host: HostName, payload: unknown): Promise<HookReply> => f.hook(host, payload);

function claude(event: string, tool: string, input: unknown, id: string, extra = {}) {
  return {
    session_id: "cc-session-1",
    transcript_path: "/tmp/t.jsonl",
    cwd: dir,
    permission_mode: "default",
    hook_event_name: event,
    tool_name: tool,
    tool_input: input,
    tool_use_id: id,
    ...extra,
  };
}

const decisionOf = (reply: HookReply) =>
  (JSON.parse(reply.stdout) as { hookSpecificOutput: { permissionDecision: string } })
    .hookSpecificOutput.permissionDecision;

describe("docket hook claude-code", () => {
  it("allows, denies and asks by docket's policy, with the rule in the reason", async () => {
    const allowed = await hook(
      "claude-code",
      claude("PreToolUse", "Bash", { command: "ls -la" }, "t1"),
    );
    expect(allowed.exitCode).toBe(0);
    expect(decisionOf(allowed)).toBe("allow");
    expect(allowed.stdout).toContain("ls-ok");
    const denied = await hook(
      "claude-code",
      claude("PreToolUse", "Bash", { command: "ls; rm -rf /" }, "t2"),
    );
    expect(decisionOf(denied)).toBe("deny");
    expect(denied.stdout).toContain("no-rm");
    const asked = await hook(
      "claude-code",
      claude("PreToolUse", "Bash", { command: "make all" }, "t3"),
    );
    expect(decisionOf(asked)).toBe("ask");
    const secret = await hook(
      "claude-code",
      claude("PreToolUse", "Read", { file_path: join(dir, ".env") }, "t4"),
    );
    expect(decisionOf(secret)).toBe("deny");
    const mcp = await hook(
      "claude-code",
      claude("PreToolUse", "mcp__github__create_issue", { title: "x" }, "t5"),
    );
    expect(decisionOf(mcp)).toBe("allow");
  });

  it("records PostToolUse as the call's finish, and a host-approved ask as approved", async () => {
    await hook(
      "claude-code",
      claude("PostToolUse", "Bash", { command: "ls -la" }, "t1", {
        tool_response: { stdout: "a" },
      }),
    );
    await hook(
      "claude-code",
      claude("PostToolUse", "Bash", { command: "make all" }, "t3", {
        tool_response: { stdout: "" },
      }),
    );
    const store = await openStore(storeUrl, { readOnly: true });
    try {
      const events = await store.listEvents({ sessionId: "cc-session-1" });
      const of = (id: string) => events.filter((e) => e.callId === id).map((e) => e.type);
      expect(of("t1")).toEqual(["requested", "decided", "started", "finished"]);
      expect(of("t2")).toEqual(["requested", "decided", "refused"]);
      expect(of("t3")).toEqual([
        "requested",
        "decided",
        "approval_requested",
        "awaiting_approval",
        "approved",
        "started",
        "finished",
      ]);
      expect((await store.getSession("cc-session-1"))?.principal).toBe("claude-code");
    } finally {
      await store.close();
    }
  });

  it("answers PermissionRequest only from a docket approval, else lets the host prompt", async () => {
    const reply = await hook("claude-code", {
      session_id: "cc-session-1",
      hook_event_name: "PermissionRequest",
      tool_name: "Bash",
      tool_input: { command: "make all" },
    });
    expect(reply).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });

  it("denies a malformed payload, a wrong tool input and a hostile session id", async () => {
    for (const payload of [
      "not json",
      "[]",
      { hook_event_name: "PreToolUse" },
      claude("PreToolUse", "Bash", "ls", "t9"),
      claude("PreToolUse", "Bash", { command: ["rm", "-rf", "/"] }, "t10"),
      { ...claude("PreToolUse", "Bash", { command: "ls" }, "t11"), session_id: "../../etc" },
    ]) {
      const reply = await hook("claude-code", payload);
      const denied = reply.exitCode === 2 || decisionOf(reply) === "deny";
      expect(denied, JSON.stringify(payload)).toBe(true);
    }
  });

  it("an agent cannot talk its way past the policy or out of the hook", async () => {
    const attacks: [string, unknown][] = [
      // Shell analysis, not string matching: the rm hides behind bash -c, a subshell, env.
      ["Bash", { command: "bash -c 'rm -rf ~'" }],
      ["Bash", { command: "ls && (env rm -rf /)" }],
      ["Bash", { command: "ls $(rm -rf /)" }],
      // The host's own hook registration and docket's state, whatever a rule allows.
      ["Write", { file_path: join(dir, ".claude", "settings.json"), content: "{}" }],
      ["Bash", { command: "ls; echo '{}' > .claude/settings.json" }],
      ["Read", { file_path: join(dir, ".docket", "hook.sock") }],
      // Every daemon's socket and its log (ADR 0104), and a long project's private folder.
      ["Bash", { command: `rm ${join(dir, ".docket", "hook-0123456789abcdef.sock")}` }],
      ["Write", { file_path: join(dir, ".docket", "hook-serve.log"), content: "" }],
      ["Bash", { command: `ls ${privateSocketFolderPath()}` }],
      ["Bash", { command: "ls docket.yaml; rm docket.yaml" }],
    ];
    let n = 0;
    for (const [tool, input] of attacks) {
      n += 1;
      const reply = await hook("claude-code", claude("PreToolUse", tool, input, `atk${n}`));
      expect(decisionOf(reply), JSON.stringify(input)).not.toBe("allow");
    }
    const settings = await hook(
      "claude-code",
      claude(
        "PreToolUse",
        "Edit",
        { file_path: ".claude/settings.json", old_string: "a", new_string: "" },
        "atk-edit",
      ),
    );
    expect(decisionOf(settings)).toBe("deny");
    expect(settings.stdout).toContain("hook:self-protection");
    // Names that are properties of every object map to nothing: a tool docket does not know,
    // denied by name with how to map it (what docket cannot see, it does not allow).
    for (const name of ["__proto__", "constructor", "toString"]) {
      n += 1;
      const reply = await hook("claude-code", claude("PreToolUse", name, {}, `atk${n}`));
      expect(decisionOf(reply)).toBe("deny");
      expect(reply.stdout).toContain(`tool \\"${name}\\"`);
      expect(reply.stdout).toContain("hooks.tools.claude-code");
    }
  });

  it("never clears one tool_use_id twice", async () => {
    const again = await hook(
      "claude-code",
      claude("PreToolUse", "Bash", { command: "ls -la" }, "t1"),
    );
    expect(decisionOf(again)).toBe("deny");
  });
});

describe("docket hook gemini-cli", () => {
  const gemini = (event: string, tool: string, input: unknown, extra = {}) => ({
    session_id: "gem-session-1",
    transcript_path: "/tmp/g.json",
    cwd: dir,
    hook_event_name: event,
    timestamp: "2026-12-01T10:00:00.000Z",
    tool_name: tool,
    tool_input: input,
    ...extra,
  });

  it("answers decision allow, deny and ask, and pairs AfterTool with its BeforeTool", async () => {
    const allowed = await hook(
      "gemini-cli",
      gemini("BeforeTool", "run_shell_command", { command: "ls" }),
    );
    expect(JSON.parse(allowed.stdout)).toMatchObject({ decision: "allow" });
    const denied = await hook(
      "gemini-cli",
      gemini("BeforeTool", "run_shell_command", { command: "rm x" }),
    );
    expect(JSON.parse(denied.stdout)).toMatchObject({ decision: "deny" });
    const asked = await hook(
      "gemini-cli",
      gemini("BeforeTool", "run_shell_command", { command: "make" }),
    );
    expect(JSON.parse(asked.stdout)).toMatchObject({ decision: "ask" });
    const after = await hook(
      "gemini-cli",
      gemini(
        "AfterTool",
        "run_shell_command",
        { command: "ls" },
        { tool_response: { llmContent: "a" } },
      ),
    );
    expect(after).toEqual({ stdout: "{}\n", stderr: "", exitCode: 0 });
    const store = await openStore(storeUrl, { readOnly: true });
    try {
      const calls = await store.listCalls({ sessionId: "gem-session-1" });
      expect(
        calls.filter((call) => call.state === "finished" && call.status === "ok"),
      ).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it("denies a malformed payload", async () => {
    expect((await hook("gemini-cli", "{")).exitCode).toBe(2);
  });
});

describe("docket hook codex", () => {
  const codex = (tool: string, input: unknown, id: string) => ({
    session_id: "codex-session-1",
    turn_id: "turn-1",
    transcript_path: null,
    cwd: dir,
    model: "gpt-5",
    permission_mode: "default",
    hook_event_name: "PreToolUse",
    tool_name: tool,
    tool_input: input,
    tool_use_id: id,
  });

  it("allows by silence, denies with a reason, and turns an ask into a wait that ends in deny", async () => {
    expect(await hook("codex", codex("Bash", { command: "ls" }, "c1"))).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 0,
    });
    const denied = await hook("codex", codex("Bash", { command: "rm -rf ." }, "c2"));
    expect(JSON.parse(denied.stdout)).toMatchObject({
      hookSpecificOutput: { permissionDecision: "deny" },
    });
    // hooks.wait is 300 ms here and nobody approves: the ask ends as a deny, never a silent run.
    const asked = await hook("codex", codex("Bash", { command: "make" }, "c3"));
    expect(asked.stdout).toContain('"permissionDecision":"deny"');
  });
});

describe("docket hook opencode", () => {
  const opencode = (tool: string, input: unknown, id: string) => ({
    hook_event_name: "tool.execute.before",
    session_id: "oc-session-1",
    tool_use_id: id,
    tool_name: tool,
    tool_input: input,
  });

  it("answers allow or deny for the plugin to act on", async () => {
    const allowed = await hook("opencode", opencode("bash", { command: "ls" }, "o1"));
    expect(JSON.parse(allowed.stdout)).toMatchObject({ decision: "allow" });
    const denied = await hook("opencode", opencode("read", { filePath: join(dir, ".env") }, "o2"));
    expect(JSON.parse(denied.stdout)).toMatchObject({ decision: "deny" });
  });
});

describe("ask as a docket approval wait", () => {
  it("allows once an approver approves through any channel, within the wait", async () => {
    const waiting = join(dir, "waiting.yaml");
    await writeFile(
      waiting,
      [
        "policy:",
        "  rules:",
        "    - { id: make-asks, tool: run_command, command: 'make *', decision: ask }",
        "hooks:",
        "  wait: 20s",
        "",
      ].join("\n"),
    );
    const answer = runHook({
      host: "codex",
      config: waiting,
      store: storeUrl,
      text: JSON.stringify({
        session_id: "codex-wait-1",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command: "make release" },
        tool_use_id: "cw1",
      }),
    });
    const id = approvalIdFor("codex-wait-1", "cw1");
    const store = await openStore(storeUrl);
    try {
      for (let i = 0; i < 100 && !(await store.getApproval(id)); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const outcome = await decideApproval(
        store,
        createApproverDirectory({ alice: { roles: ["ops"] } }, {}),
        {
          approvalId: id,
          decision: "approve",
          claim: { name: "alice" },
        },
      );
      expect(outcome.status).toBe("decided");
    } finally {
      await store.close();
    }
    expect(await answer).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  }, 30_000);
});
