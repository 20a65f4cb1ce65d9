import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRegistration } from "../../src/hook/hook-registration.js";
import { type PeekWorkspace, peekWorkspace } from "../support/contained-peek.js";
import { startFakeAnthropicAgent } from "../support/fake-providers/fake-anthropic-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import { claudeEnv, docketHookCommand, hostBinary, readHostTrail } from "../support/host-e2e.js";

// The real Claude Code 2.1.332 runs a Bash call docket allows; docket's PreToolUse answer rewrites
// it (`updatedInput`) into `docket hook exec`, so the command runs in docket's sandbox with
// run_command's profile. The project's own script (which an agent could have written) tries to
// print an approver's token from the host's environment, docket's config, a secret a deny rule
// protects and the host's settings, and to leave a process running: none of it works.
const run = promisify(execFile);
const TOKEN = "approver-token-9f3c1e77";

let w: PeekWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await peekWorkspace("claude-contained", {
    dirs: ["ws/.claude"],
    tokenVar: "DOCKET_TOKEN",
    settings: ".claude/settings.json",
    linger: "417.25", // a `sleep` no other process on the machine runs
  });
  fake = await startFakeAnthropicAgent("Bash", [
    {
      toolCalls: [
        {
          id: "toolu_peek",
          name: "Bash",
          arguments: JSON.stringify({ command: "bash peek.sh > seen.txt", description: "peek" }),
        },
      ],
    },
  ]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("Claude Code's commands run contained in docket's sandbox", () => {
  it("a command an allow rule clears sees no token, no docket file, no secret, and leaves nothing running", async () => {
    const { ws, home } = w;
    await writeFile(
      join(ws, ".claude", "settings.json"),
      withRegistration("claude-code", "", docketHookCommand("claude-code"), 60, "settings.json"),
    );
    await run(hostBinary("claude"), ["-p", "peek", "--output-format", "json"], {
      cwd: ws,
      env: { ...claudeEnv(home, fake.url), DOCKET_TOKEN: TOKEN },
      timeout: 150_000,
    });
    await w.expectContained(TOKEN, "PreToolUse");

    // The trail keeps the command the model sent, which is what docket judged.
    const trail = await readHostTrail(ws);
    const call = trail.calls.find((c) => c.callId === "toolu_peek");
    expect(call?.rule).toBe("shell-ok");
    expect(call?.status).toBe("ok");
    const requested = trail.events.find((e) => e.callId === "toolu_peek" && e.type === "requested");
    expect(JSON.stringify(requested)).toContain("bash peek.sh > seen.txt");
    expect(trail.verified).toBe(true);
  }, 200_000);
});
