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

// The real Codex CLI (0.171.0): its write_stdin types into a process an earlier exec_command
// left running, and no hook fires for it (seen here: only the exec_command reaches PreToolUse,
// as `Bash`). So docket denies the enabling call: a command that would leave a shell waiting
// for keystrokes. The fake model asks for `bash` on a terminal, then types a command into it.
// A permissive policy (every command allowed) shows the deny is docket's, not a rule's.

let w: HostWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await hostWorkspace("codex-keys", {
    dirs: ["home/.codex"],
    policy: [
      "policy:",
      "  rules:",
      "    - { id: any-command, tool: run_command, decision: allow }",
      "",
    ].join("\n"),
  });
  fake = await startFakeResponsesAgent([
    { name: "exec_command", arguments: { cmd: "bash", tty: true, yield_time_ms: 500 } },
    // Into the session the shell would have left (Codex prints its id), else a made-up one.
    (outputs) => ({
      name: "write_stdin",
      arguments: {
        session_id: Number(/session ID (\d+)/.exec(outputs.join("\n"))?.[1] ?? 1),
        chars: "touch keyed-effect\n",
        yield_time_ms: 500,
      },
    }),
    "mkdir allowed-effect",
  ]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("Codex CLI: keystrokes into a running process", () => {
  it("denies the command that would leave a shell for write_stdin to type into", async () => {
    const { ws, config } = w;
    await runCodex(w, fake.url, (toml) =>
      withRegistration("codex", toml, docketHookCommand("codex", config), 60, "config.toml"),
    );
    expect(existsSync(join(ws, "keyed-effect"))).toBe(false);
    expect(existsSync(join(ws, "allowed-effect"))).toBe(true);
    const trail = await readHostTrail(ws);
    expect(trail.statusByRule()).toEqual({ "hook:keystrokes": "refused", "any-command": "ok" });
    expect(trail.verified).toBe(true);
  }, 200_000);
});
