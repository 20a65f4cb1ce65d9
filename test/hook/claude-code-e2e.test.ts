import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRegistration } from "../../src/hook/hook-registration.js";
import { startFakeAnthropicAgent } from "../support/fake-providers/fake-anthropic-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import {
  claudeEnv,
  docketHookCommand,
  type HostWorkspace,
  hostBinary,
  hostWorkspace,
  readHostTrail,
} from "../support/host-e2e.js";

// The real Claude Code (2.1.332, its native binary runs here on Node 20), pointed at a fake
// Anthropic server on 127.0.0.1 that asks for two Bash calls: one docket's policy denies, one it
// allows. docket is registered as Claude Code documents hooks (docs.anthropic.com/en/docs/claude-code/hooks:
// `hooks.PreToolUse[].matcher` and `hooks[].type: "command"`, `onFailure: "block"` since 2.1.295).
const run = promisify(execFile);

let w: HostWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await hostWorkspace("claude", { dirs: ["ws/.claude"] });
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
  await w?.remove();
});

describe("Claude Code with docket as its PreToolUse hook", () => {
  it("runs the Bash call docket allows, not the one it denies, and both are in the audit trail", async () => {
    const { ws, home } = w;
    // What `docket hook install claude-code` writes, so the real host reads the real registration.
    await writeFile(
      join(ws, ".claude", "settings.json"),
      withRegistration("claude-code", "", docketHookCommand("claude-code"), 60, "settings.json"),
    );
    const { stdout } = await run(
      hostBinary("claude"),
      ["-p", "make the two things", "--output-format", "json"],
      {
        cwd: ws,
        env: claudeEnv(home, fake.url),
        timeout: 150_000,
      },
    );
    const result = JSON.parse(stdout) as {
      permission_denials: { tool_use_id: string }[];
    };
    expect(result.permission_denials.map((denial) => denial.tool_use_id)).toEqual(["toolu_denied"]);
    expect(existsSync(join(ws, "denied-effect"))).toBe(false);
    expect(existsSync(join(ws, "allowed-effect"))).toBe(true);

    const trail = await readHostTrail(ws);
    expect(trail.sessions.map((session) => session.principal)).toEqual(["claude-code"]);
    expect(trail.typesOf("toolu_denied")).toEqual(["requested", "decided", "refused"]);
    expect(trail.typesOf("toolu_allowed")).toEqual(["requested", "decided", "started", "finished"]);
    expect(trail.verified).toBe(true);
  }, 200_000);
});
