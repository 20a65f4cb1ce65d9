import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
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
import { driveHostTty, ESCAPE } from "../support/host-tty.js";

// The real Claude Code (2.1.332) asks its own user about a Bash call docket answers `ask`
// (hooks.ask: host, the default). When the user refuses, Claude Code tells no hook: docket
// settles the call from the next event the host does send. Both ways a real host refuses are
// driven here: -p (nobody to ask: the ask is refused, and PostToolBatch names the call) and the
// interactive prompt at a real pseudo-terminal (Esc refuses; the turn is interrupted, and the
// user's next prompt is the next event).
const run = promisify(execFile);
const ASKS = [
  "policy:",
  "  rules:",
  "    - { id: mkdir-asks, tool: run_command, command: 'mkdir *', decision: ask }",
  "",
].join("\n");
const ASKED = ["requested", "decided", "approval_requested", "awaiting_approval"];

let w: HostWorkspace | undefined;
let fake: FakeServer | undefined;
afterEach(async () => {
  await fake?.close();
  await w?.remove();
});

async function setUp(name: string): Promise<{ w: HostWorkspace; fake: FakeServer }> {
  w = await hostWorkspace(name, { policy: ASKS, dirs: ["ws/.claude"] });
  await writeFile(
    join(w.ws, ".claude", "settings.json"),
    withRegistration("claude-code", "", docketHookCommand("claude-code"), 60, "settings.json"),
  );
  fake = await startFakeAnthropicAgent("Bash", [
    {
      toolCalls: [
        {
          id: "toolu_asked",
          name: "Bash",
          arguments: JSON.stringify({ command: "mkdir asked-effect", description: "make a dir" }),
        },
      ],
    },
  ]);
  return { w, fake };
}

/** Wait until the trail shows the call settled (an async hook may still be writing). */
async function settledTrail(ws: string) {
  for (let i = 0; ; i += 1) {
    const trail = await readHostTrail(ws);
    if (trail.typesOf("toolu_asked").includes("refused") || i >= 40) return trail;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function expectRefusedAtPrompt(trail: Awaited<ReturnType<typeof readHostTrail>>, end: RegExp) {
  expect(trail.typesOf("toolu_asked")).toEqual([...ASKED, "approval_denied", "refused"]);
  const denial = trail.events.find((e) => e.type === "approval_denied")?.event;
  expect(denial).toMatchObject({ by: "claude-code:prompt" });
  expect(JSON.stringify(denial)).toMatch(end);
  expect(trail.calls.find((c) => c.callId === "toolu_asked")).toMatchObject({
    status: "refused",
    reason: "approval_denied",
  });
  expect(trail.verified).toBe(true);
}

describe("Claude Code refusing at its own prompt a call docket handed it", () => {
  it("-p: the refused ask is settled as refused at the host's prompt", async () => {
    const { w, fake } = await setUp("claude-print");
    const { stdout } = await run(
      hostBinary("claude"),
      ["-p", "make it", "--output-format", "json"],
      { cwd: w.ws, env: claudeEnv(w.home, fake.url), timeout: 150_000 },
    );
    const result = JSON.parse(stdout) as { permission_denials: { tool_use_id: string }[] };
    expect(result.permission_denials.map((d) => d.tool_use_id)).toEqual(["toolu_asked"]);
    expect(existsSync(join(w.ws, "asked-effect"))).toBe(false);
    expectRefusedAtPrompt(
      await settledTrail(w.ws),
      /resolved its batch without running it|session ended before it reported/,
    );
  }, 200_000);

  it("interactive: Esc at the prompt, then the next prompt, settles it as refused", async () => {
    const { w, fake } = await setUp("claude-tty");
    // A home that has been through onboarding, trusts the project and accepted the key.
    await writeFile(
      join(w.home, ".claude.json"),
      JSON.stringify({
        hasCompletedOnboarding: true,
        theme: "dark",
        customApiKeyResponses: { approved: ["sk-ant-fake"], rejected: [] },
        projects: { [w.ws]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
      }),
    );
    const tty = driveHostTty(hostBinary("claude"), ["make it"], {
      cwd: w.ws,
      env: claudeEnv(w.home, fake.url),
    });
    try {
      const prompt = await tty.shown(/Doyouwanttoproceed/i);
      tty.type(ESCAPE);
      await tty.shown(/Interrupted/i, prompt);
      tty.type("next thing\r");
      await tty.shown(/done\./, prompt);
      expect(existsSync(join(w.ws, "asked-effect"))).toBe(false);
      expectRefusedAtPrompt(await settledTrail(w.ws), /took the user's next prompt/);
    } finally {
      await tty.close();
    }
  }, 200_000);
});
