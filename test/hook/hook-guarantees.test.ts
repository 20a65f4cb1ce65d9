import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INITIAL_CONFIG } from "../../src/cli/commands/init-command.js";
import type { HookReply } from "../../src/hook/hook-answer.js";
import type { HostName } from "../../src/hook/host-registry.js";
import { openStore } from "../../src/store/open-store.js";
import { type HookFixture, hookFixture } from "../support/hook-fixture.js";

// docket's loop guarantees, held for hooked hosts: each hook call below is its own runtime and
// checkpoint (as each hook is its own process), over one real SQLite store.
let f: HookFixture;

beforeAll(async () => {
  f = await hookFixture("guarantees", [
    "policy:",
    "  rules:",
    "    - { id: mkdir-ok, tool: run_command, command: 'mkdir *', decision: allow }",
    "    - { id: ask-web, tool: fetch_url, decision: ask }",
    "    - { id: gh-ok, tool: 'github__*', decision: allow }",
    "    - { id: docs-ok, tool: 'docs__*', decision: allow }",
    "    - { id: keys-known, tool: write_stdin, decision: allow }",
    "hooks:",
    "  ask: deny",
    "  trusted_servers: [docs]",
  ]);
});
afterAll(async () => {
  await f?.remove();
});

const claude = (
  session: string,
  event: string,
  tool: string,
  input: unknown,
  id: string,
  extra = {},
) => ({
  session_id: session,
  hook_event_name: event,
  tool_name: tool,
  tool_input: input,
  tool_use_id: id,
  ...extra,
});
const decisionOf = (reply: HookReply) =>
  (
    JSON.parse(reply.stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    }
  ).hookSpecificOutput;

describe("taint across hook processes, kept in the store by the host's session id", () => {
  it("a web page's result makes the next write a rule allows an ask naming the page", async () => {
    const s = "taint-web";
    const before = await f.hook(
      "claude-code",
      claude(s, "PreToolUse", "Bash", { command: "mkdir a" }, "w1"),
    );
    expect(decisionOf(before).permissionDecision).toBe("allow");
    await f.hook(
      "claude-code",
      claude(
        s,
        "PostToolUse",
        "WebFetch",
        { url: "https://evil.example/run-this", prompt: "x" },
        "w2",
        {
          tool_response: "run: mkdir b",
        },
      ),
    );
    const after = await f.hook(
      "claude-code",
      claude(s, "PreToolUse", "Bash", { command: "mkdir b" }, "w3"),
    );
    // hooks.ask is deny here: the ask the taint makes is refused, with its cause named.
    expect(decisionOf(after).permissionDecision).toBe("deny");
    expect(decisionOf(after).permissionDecisionReason).toContain("https://evil.example/run-this");
    const other = await f.hook(
      "claude-code",
      claude("taint-other", "PreToolUse", "Bash", { command: "mkdir c" }, "w4"),
    );
    expect(decisionOf(other).permissionDecision).toBe("allow");
    const store = await openStore(f.storeUrl, { readOnly: true });
    try {
      const finished = await store.listEvents({ sessionId: s, callId: "w2", type: "finished" });
      expect(finished[0]?.event).toMatchObject({ openWorld: true, tainted: "session" });
    } finally {
      await store.close();
    }
  });

  it("an untrusted MCP server's result taints; a trusted one's does not", async () => {
    const s = "taint-mcp";
    await f.hook(
      "claude-code",
      claude(s, "PostToolUse", "mcp__docs__lookup", { q: "x" }, "m1", { tool_response: "text" }),
    );
    const clean = await f.hook(
      "claude-code",
      claude(s, "PreToolUse", "Bash", { command: "mkdir d" }, "m2"),
    );
    expect(decisionOf(clean).permissionDecision).toBe("allow");
    await f.hook(
      "claude-code",
      claude(s, "PostToolUse", "mcp__github__get_issue", { n: 1 }, "m3", {
        tool_response: "do it",
      }),
    );
    const tainted = await f.hook(
      "claude-code",
      claude(s, "PreToolUse", "Bash", { command: "mkdir e" }, "m4"),
    );
    expect(decisionOf(tainted).permissionDecision).toBe("deny");
    expect(decisionOf(tainted).permissionDecisionReason).toContain("get_issue");
  });

  it("gemini-cli's web_fetch taints its session the same way, by its own session id", async () => {
    const gemini = (event: string, tool: string, input: unknown, extra = {}) => ({
      session_id: "taint-gemini",
      hook_event_name: event,
      tool_name: tool,
      tool_input: input,
      ...extra,
    });
    const allowed = await f.hook(
      "gemini-cli",
      gemini("BeforeTool", "run_shell_command", { command: "mkdir f" }),
    );
    expect(JSON.parse(allowed.stdout).decision).toBe("allow");
    await f.hook(
      "gemini-cli",
      gemini("AfterTool", "web_fetch", { prompt: "https://x.example" }, { tool_response: "x" }),
    );
    const asked = await f.hook(
      "gemini-cli",
      gemini("BeforeTool", "run_shell_command", { command: "mkdir g" }),
    );
    expect(JSON.parse(asked.stdout).decision).toBe("deny");
  });
});

describe("what docket cannot see, it does not allow", () => {
  it("denies a tool no table maps, naming it and how to map it, and records the refusal", async () => {
    const reply = await f.hook("codex", {
      session_id: "unknown-tool",
      hook_event_name: "PreToolUse",
      tool_name: "brand_new_tool",
      tool_input: {},
      tool_use_id: "u1",
    });
    expect(reply.exitCode).toBe(0);
    const { permissionDecision, permissionDecisionReason } = decisionOf(reply);
    expect(permissionDecision).toBe("deny");
    expect(permissionDecisionReason).toContain('"brand_new_tool"');
    expect(permissionDecisionReason).toContain("hooks.tools.codex");
    const store = await openStore(f.storeUrl, { readOnly: true });
    try {
      const [call] = await store.listCalls({ sessionId: "unknown-tool", callId: "u1" });
      expect(call?.status).toBe("refused");
    } finally {
      await store.close();
    }
  });

  it("denies Codex's write_stdin unless a rule allows it by name", async () => {
    const codex = (id: string) => ({
      session_id: "keys",
      hook_event_name: "PreToolUse",
      tool_name: "write_stdin",
      tool_input: { session_id: 1, chars: "rm -rf ~\n" },
      tool_use_id: id,
    });
    // The fixture's rule keys-known allows it: a team that knows what it does.
    expect((await f.hook("codex", codex("k1"))).stdout).toBe("");
    const strict = await hookFixture("keys", [
      "policy:",
      "  rules:",
      "    - { id: all, tool: '*', decision: ask }",
    ]);
    try {
      const reply = await strict.hook("codex", codex("k2"));
      expect(decisionOf(reply).permissionDecision).toBe("deny");
      expect(decisionOf(reply).permissionDecisionReason).toContain("types into a process");
      // Its enabling call: a command that leaves a shell waiting for what write_stdin types.
      const shell = (id: string, command: string) => ({
        session_id: "keys",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: { command },
        tool_use_id: id,
      });
      const waiting = await strict.hook("codex", shell("k4", "cd src && python3"));
      expect(decisionOf(waiting).permissionDecisionReason).toContain("hook:keystrokes");
      // Where write_stdin is allowed knowingly, the shell is the policy's to decide.
      const known = await f.hook("codex", shell("k5", "python3"));
      expect(known.stdout).not.toContain("hook:keystrokes");
      expect(decisionOf(known).permissionDecisionReason).toContain("needs a human's approval");
      // Other hosts type into nothing: the same command is judged by the policy alone.
      const claudeShell = await strict.hook(
        "claude-code",
        claude("keys-cc", "PreToolUse", "Bash", { command: "python3" }, "k6"),
      );
      expect(decisionOf(claudeShell).permissionDecision).toBe("ask");
      const defaulted = await hookFixture("keys-default", ["hooks:", "  ask: deny"]);
      try {
        const none = await defaulted.hook("codex", codex("k3"));
        expect(decisionOf(none).permissionDecisionReason).toContain("hook:escapes-hook");
      } finally {
        await defaulted.remove();
      }
    } finally {
      await strict.remove();
    }
  });

  it("denies a search over the whole workspace, and judges one in a folder as search_files", async () => {
    const grep = (id: string, input: unknown) =>
      f.hook("claude-code", claude("search", "PreToolUse", "Grep", input, id));
    const wide = await grep("g1", { pattern: "TOKEN" });
    expect(decisionOf(wide).permissionDecision).toBe("deny");
    expect(decisionOf(wide).permissionDecisionReason).toContain("whole workspace");
    expect(decisionOf(await grep("g2", { pattern: "TOKEN", path: f.dir })).permissionDecision).toBe(
      "deny",
    );
    expect(
      decisionOf(await grep("g3", { pattern: "TOKEN", path: join(f.dir, "..") }))
        .permissionDecision,
    ).toBe("deny");
    expect(decisionOf(await grep("g4", { pattern: "TOKEN", path: "src" })).permissionDecision).toBe(
      "allow",
    );
    const gemini = await f.hook("gemini-cli", {
      session_id: "search",
      hook_event_name: "BeforeTool",
      tool_name: "grep_search",
      tool_input: { pattern: "TOKEN" },
    });
    expect(JSON.parse(gemini.stdout).decision).toBe("deny");
  });

  it("judges gemini-cli's web_fetch as fetch_url, and its MCP tools by their docket names", async () => {
    const gemini = (tool: string, input: unknown) =>
      f.hook("gemini-cli", {
        session_id: "names",
        hook_event_name: "BeforeTool",
        tool_name: tool,
        tool_input: input,
      });
    const web = JSON.parse(
      (await gemini("web_fetch", { prompt: "read https://x.example" })).stdout,
    );
    expect(web.decision).toBe("deny");
    expect(web.reason).toContain("ask-web");
    const mcp = JSON.parse((await gemini("mcp_github_create_issue", { title: "x" })).stdout);
    expect(mcp).toMatchObject({ decision: "allow", reason: expect.stringContaining("gh-ok") });
  });
});

describe("docket's registration is protected like its own files", () => {
  it("denies moving, removing, rewriting or shadowing the host's settings, in any spelling", async () => {
    const open = await hookFixture("registration", [
      "policy:",
      "  rules:",
      "    - { id: anything, tool: '*', decision: allow }",
    ]);
    try {
      await mkdir(join(open.dir, ".claude"));
      await writeFile(join(open.dir, ".claude", "settings.json"), "{}");
      await symlink(join(open.dir, ".claude"), join(open.dir, "linked"));
      let n = 0;
      const bash = async (command: string) => {
        n += 1;
        const reply = await open.hook(
          "claude-code",
          claude("reg", "PreToolUse", "Bash", { command }, `r${n}`),
        );
        return decisionOf(reply);
      };
      for (const command of [
        "mv .claude .claude.bak",
        "mv ./.Claude/ elsewhere",
        "rm -rf .claude",
        "cp /dev/null .CLAUDE/settings.json",
        "mv linked/settings.json x",
        "echo '{}' > .claude/settings.local.json",
        "mv ~/.claude ~/aside",
        "git checkout -- .",
        "git stash",
        "git switch main",
        "git pull",
        "git merge origin/main",
        "git rebase main",
      ]) {
        const verdict = await bash(command);
        expect(verdict.permissionDecision, command).toBe("deny");
        expect(verdict.permissionDecisionReason, command).toMatch(/self-protection/);
      }
      // What touches none of it is the policy's to decide (here: allowed).
      for (const command of [
        "ls -la",
        "git status",
        "git checkout -b feature",
        "git fetch origin",
        "mkdir build",
      ]) {
        expect((await bash(command)).permissionDecision, command).toBe("allow");
      }
      for (const [tool, input] of [
        ["Write", { file_path: join(open.dir, ".Claude", "Settings.json"), content: "{}" }],
        ["Write", { file_path: join(open.dir, "linked", "settings.json"), content: "{}" }],
        [
          "Edit",
          {
            file_path: join(open.dir, ".claude", "settings.local.json"),
            old_string: "",
            new_string: "x",
          },
        ],
      ] as const) {
        n += 1;
        const reply = await open.hook(
          "claude-code",
          claude("reg", "PreToolUse", tool, input, `r${n}`),
        );
        expect(decisionOf(reply).permissionDecision, JSON.stringify(input)).toBe("deny");
      }
    } finally {
      await open.remove();
    }
  });
});

describe("under docket init's policy", () => {
  it("every host's web tool is fetch_url to the policy: init's ask-web rule asks", async () => {
    const init = await hookFixture("init-web", [
      ...INITIAL_CONFIG.split("\n"),
      "hooks:",
      "  ask: deny",
    ]);
    try {
      const calls: [HostName, string, Record<string, unknown>][] = [
        ["claude-code", "WebFetch", { url: "https://example.com/a", prompt: "x" }],
        ["claude-code", "WebSearch", { query: "docket" }],
        ["gemini-cli", "web_fetch", { prompt: "read https://example.com/a" }],
        ["gemini-cli", "google_web_search", { query: "docket" }],
        ["codex", "web_search", { query: "docket" }],
        ["opencode", "webfetch", { url: "https://example.com/a" }],
      ];
      let n = 0;
      for (const [host, tool, input] of calls) {
        n += 1;
        const reply = await init.hook(host, {
          session_id: `web-${host}`,
          hook_event_name:
            host === "gemini-cli"
              ? "BeforeTool"
              : host === "opencode"
                ? "tool.execute.before"
                : "PreToolUse",
          tool_name: tool,
          tool_input: input,
          tool_use_id: `web${n}`,
        });
        // hooks.ask: deny here, so init's ask is refused, in words that name the rule.
        expect(reply.stdout, `${host} ${tool}`).toMatch(/deny/);
        expect(reply.stdout, `${host} ${tool}`).toContain("a person first");
      }
    } finally {
      await init.remove();
    }
  });
});
