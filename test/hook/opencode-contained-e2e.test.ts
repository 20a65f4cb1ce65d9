import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PeekWorkspace, peekWorkspace } from "../support/contained-peek.js";
import { startFakeChatAgent } from "../support/fake-providers/fake-chat-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import { readHostTrail, runOpencode } from "../support/host-e2e.js";

// The real opencode 1.18.33 runs a bash call docket allows; docket's answer carries the command
// rewritten into `docket hook exec`, which its plugin copies into the call's args, so the command
// runs in docket's sandbox with run_command's profile: no token from opencode's environment, no
// docket file, no deny-rule secret, no registration, nothing left running.
const TOKEN = "approver-token-7b2e90d1";

let w: PeekWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await peekWorkspace("opencode-contained", {
    dirs: [],
    tokenVar: "BOB_TOKEN",
    settings: ".opencode/plugin/docket.js",
    linger: "421.5", // a `sleep` no other process on the machine runs
  });
  fake = await startFakeChatAgent("bash", [
    { command: "bash peek.sh > seen.txt", description: "peek" },
  ]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("opencode's commands run contained in docket's sandbox", () => {
  it("a command an allow rule clears sees no token, no docket file, no secret, and leaves nothing running", async () => {
    await runOpencode(w, fake.url, "peek", { BOB_TOKEN: TOKEN });
    await w.expectContained(TOKEN, "tool.execute.before");

    const trail = await readHostTrail(w.ws);
    expect(trail.statusByRule()).toEqual({ "shell-ok": "ok" });
    const text = JSON.stringify(trail.events);
    expect(text).toContain("bash peek.sh > seen.txt");
    expect(trail.verified).toBe(true);
  }, 300_000);
});
