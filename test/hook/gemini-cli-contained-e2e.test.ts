import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PeekWorkspace, peekWorkspace } from "../support/contained-peek.js";
import { startFakeGeminiAgent } from "../support/fake-providers/fake-gemini-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import { readHostTrail, runGemini } from "../support/host-e2e.js";

// The real gemini-cli 0.61.0 runs a run_shell_command call docket allows, twice; docket's
// BeforeTool answer rewrites it (`hookSpecificOutput.tool_input`) into `docket hook exec`, so the
// command runs in docket's sandbox with run_command's profile. gemini-cli's AfterTool then reports
// the rewritten input and no call id: docket must still pair each with the call it cleared.
const TOKEN = "approver-token-5e1d0c42";
const PEEK = { name: "run_shell_command", args: { command: "bash peek.sh > seen.txt" } };

let w: PeekWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await peekWorkspace("gemini-contained", {
    dirs: ["home/.gemini"],
    tokenVar: "BOB_TOKEN",
    settings: '"$HOME/.gemini/settings.json"',
    linger: "419.75", // a `sleep` no other process on the machine runs
  });
  fake = await startFakeGeminiAgent("run_shell_command", [{ calls: [PEEK] }, { calls: [PEEK] }]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("gemini-cli's commands run contained in docket's sandbox", () => {
  it("a command an allow rule clears sees no token, no docket file, no secret, leaves nothing running, and pairs with its after event", async () => {
    await runGemini(w, fake.url, "peek", { BOB_TOKEN: TOKEN });
    await w.expectContained(TOKEN, "BeforeTool");

    // Both runs of the same command are paired with the call each before event cleared: each
    // is finished once, none is left open, and the trail keeps the command the model sent.
    const trail = await readHostTrail(w.ws);
    expect(trail.calls).toHaveLength(2);
    for (const call of trail.calls) {
      expect(call.rule).toBe("shell-ok");
      expect(call.status).toBe("ok");
      expect(trail.typesOf(call.callId).filter((type) => type === "finished")).toHaveLength(1);
    }
    const text = JSON.stringify(trail.events);
    expect(text).toContain("bash peek.sh > seen.txt");
    expect(text).not.toContain("hook exec");
    expect(trail.verified).toBe(true);
  }, 240_000);
});
