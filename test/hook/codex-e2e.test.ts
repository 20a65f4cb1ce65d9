import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRegistration } from "../../src/hook/hook-registration.js";
import { startFakeResponsesAgent } from "../support/fake-providers/fake-responses-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import {
  docketHookCommand,
  type HostWorkspace,
  hostWorkspace,
  readHostTrail,
  runCodex,
} from "../support/host-e2e.js";

// The real Codex CLI (0.171.0, its native binary), pointed at a fake Responses API through a
// `model_providers` entry in config.toml, asks for two exec_command calls; Codex reports them to
// its PreToolUse hook as `Bash` with `tool_input.command` (its pre-tool-use.command.input schema).
// docket is registered with the block `docket hook install codex` writes. Codex reviews hooks
// before it runs them (hook trust); a test has nobody to review, so it passes
// --dangerously-bypass-hook-trust. Codex's own sandbox is off (danger-full-access): its helper
// binaries refuse to live under /tmp, and docket is the gate under test.

let w: HostWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await hostWorkspace("codex", { dirs: ["home/.codex"] });
  fake = await startFakeResponsesAgent(["touch denied-effect", "mkdir allowed-effect"]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("Codex CLI with docket as its PreToolUse hook", () => {
  it("runs the command docket allows, not the one it denies, and both are in the audit trail", async () => {
    const { ws, config } = w;
    const hook = docketHookCommand("codex", config);
    await runCodex(
      w,
      fake.url,
      (toml) => withRegistration("codex", toml, hook, 60, "config.toml"),
      "make the two things",
    );
    expect(existsSync(join(ws, "denied-effect"))).toBe(false);
    expect(existsSync(join(ws, "allowed-effect"))).toBe(true);

    const trail = await readHostTrail(ws);
    expect(trail.sessions.map((session) => session.principal)).toEqual(["codex"]);
    expect(trail.statusByRule()).toEqual({ "no-touch": "refused", "mkdir-ok": "ok" });
    expect(trail.verified).toBe(true);
  }, 200_000);
});
