import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRegistration } from "../../src/hook/hook-registration.js";
import { openStore } from "../../src/store/open-store.js";
import { startFakeAnthropicAgent } from "../support/fake-providers/fake-anthropic-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";

// The real Claude Code (2.1.332, its native binary runs here on Node 20), pointed at a fake
// Anthropic server on 127.0.0.1 that asks for two Bash calls: one docket's policy denies, one it
// allows. docket is registered as Claude Code documents hooks (docs.anthropic.com/en/docs/claude-code/hooks:
// `hooks.PreToolUse[].matcher` and `hooks[].type: "command"`, `onFailure: "block"` since 2.1.295).
const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const claude = join(root, "node_modules", ".bin", "claude");
const main = join(root, "src", "cli", "main.ts");
const tsx = import.meta.resolve("tsx");

let dir: string;
let fake: FakeServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-claude-e2e-"));
  fake = await startFakeAnthropicAgent("Bash", [
    {
      toolCalls: [
        {
          id: "toolu_denied",
          name: "Bash",
          arguments: JSON.stringify({ command: "touch denied-effect", description: "make a file" }),
        },
      ],
    },
    {
      toolCalls: [
        {
          id: "toolu_allowed",
          name: "Bash",
          arguments: JSON.stringify({ command: "mkdir allowed-effect", description: "make a dir" }),
        },
      ],
    },
  ]);
});
afterAll(async () => {
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("Claude Code with docket as its PreToolUse hook", () => {
  it("runs the Bash call docket allows, not the one it denies, and both are in the audit trail", async () => {
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    await mkdir(join(ws, ".claude"), { recursive: true });
    await mkdir(home, { recursive: true });
    await writeFile(
      join(ws, "docket.yaml"),
      [
        "policy:",
        "  rules:",
        "    - { id: no-touch, tool: run_command, command: 'touch *', decision: deny }",
        "    - { id: mkdir-ok, tool: run_command, command: 'mkdir *', decision: allow }",
        "",
      ].join("\n"),
    );
    const hook = `${JSON.stringify(process.execPath)} --import ${JSON.stringify(tsx)} ${JSON.stringify(main)} hook claude-code`;
    // What `docket hook install claude-code` writes, so the real host reads the real registration.
    await writeFile(
      join(ws, ".claude", "settings.json"),
      withRegistration("claude-code", "", hook, 60, "settings.json"),
    );
    const { stdout } = await run(claude, ["-p", "make the two things", "--output-format", "json"], {
      cwd: ws,
      env: {
        ...process.env,
        HOME: home,
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: "sk-ant-fake",
        DISABLE_AUTOUPDATER: "1",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      },
      timeout: 150_000,
    });
    const result = JSON.parse(stdout) as {
      permission_denials: { tool_use_id: string }[];
    };
    expect(result.permission_denials.map((denial) => denial.tool_use_id)).toEqual(["toolu_denied"]);
    expect(existsSync(join(ws, "denied-effect"))).toBe(false);
    expect(existsSync(join(ws, "allowed-effect"))).toBe(true);

    const store = await openStore(`sqlite:${join(ws, ".docket", "docket.db")}`, {
      readOnly: true,
    });
    try {
      const sessions = await store.listSessions();
      expect(sessions).toHaveLength(1);
      expect(sessions[0]?.principal).toBe("claude-code");
      const events = await store.listEvents({ sessionId: sessions[0]?.id });
      const of = (callId: string) =>
        events.filter((record) => record.callId === callId).map((record) => record.type);
      expect(of("toolu_denied")).toEqual(["requested", "decided", "refused"]);
      expect(of("toolu_allowed")).toEqual(["requested", "decided", "started", "finished"]);
      expect((await store.verifyChain()).ok).toBe(true);
    } finally {
      await store.close();
    }
  }, 200_000);
});
