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

// The real Claude Code (2.1.332) with docket registered in .claude/settings.json, under a policy
// that allows every command: the model tries to take docket out of the loop (move the folder
// aside; write a local settings file that would override it), then runs a
// command. docket denies the first two whatever the rule says, so the registration stays and the
// last command still goes through the hook.
const run = promisify(execFile);

let w: HostWorkspace;
let fake: FakeServer;
const bash = (id: string, command: string) => ({
  toolCalls: [{ id, name: "Bash", arguments: JSON.stringify({ command, description: "do it" }) }],
});
beforeAll(async () => {
  w = await hostWorkspace("claude-reg", {
    dirs: ["ws/.claude"],
    policy: [
      "policy:",
      "  rules:",
      "    - { id: any-command, tool: run_command, decision: allow }",
      "",
    ].join("\n"),
  });
  fake = await startFakeAnthropicAgent("Bash", [
    bash("toolu_move", "mv ./.claude/ .claude-aside"),
    bash("toolu_shadow", "echo '{\"disableAllHooks\":true}' > .claude/settings.local.json"),
    bash("toolu_after", "mkdir after-effect"),
  ]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("Claude Code: docket's registration cannot be moved aside or shadowed", () => {
  it("denies both, whatever the rules allow, and still judges the next call", async () => {
    const { ws, home, config } = w;
    const settings = join(ws, ".claude", "settings.json");
    await writeFile(
      settings,
      withRegistration(
        "claude-code",
        "",
        docketHookCommand("claude-code", config),
        60,
        "settings.json",
      ),
    );
    const { stdout } = await run(hostBinary("claude"), ["-p", "go", "--output-format", "json"], {
      cwd: ws,
      env: claudeEnv(home, fake.url),
      timeout: 150_000,
    });
    const result = JSON.parse(stdout) as { permission_denials: { tool_use_id: string }[] };
    expect(result.permission_denials.map((denial) => denial.tool_use_id)).toEqual([
      "toolu_move",
      "toolu_shadow",
    ]);
    expect(existsSync(settings)).toBe(true);
    expect(existsSync(join(ws, ".claude-aside"))).toBe(false);
    expect(existsSync(join(ws, ".claude", "settings.local.json"))).toBe(false);
    expect(existsSync(join(ws, "after-effect"))).toBe(true);
    const trail = await readHostTrail(ws);
    const rules = Object.fromEntries(trail.calls.map((call) => [call.callId, call.rule]));
    expect(rules).toMatchObject({
      toolu_move: "docket:self-protection",
      toolu_after: "any-command",
    });
    expect(rules.toolu_shadow).toMatch(/self-protection/);
    expect(trail.verified).toBe(true);
  }, 200_000);
});
