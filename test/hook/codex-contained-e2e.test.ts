import { readFile, writeFile } from "node:fs/promises";
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

// docket cannot put Codex's commands in its own sandbox, so `docket hook install codex` sets
// Codex's: `shell_environment_policy.inherit = "core"` keeps an approver's token exported where
// Codex starts out of the commands it runs. The real Codex CLI 0.171.0 runs an allowed script
// that prints the token; with the registration docket writes, it prints nothing.
const TOKEN = "approver-token-4d1e8a02";

let w: HostWorkspace;
let fake: FakeServer;
const saved = process.env.DOCKET_TOKEN;
beforeAll(async () => {
  w = await hostWorkspace("codex-contained", {
    dirs: ["home/.codex"],
    policy: "policy:\n  rules:\n    - { id: shell-ok, tool: run_command, decision: allow }\n",
  });
  await writeFile(join(w.ws, "peek.sh"), 'echo "token=[$DOCKET_TOKEN]"\n');
  fake = await startFakeResponsesAgent(["bash peek.sh > seen.txt"]);
  process.env.DOCKET_TOKEN = TOKEN;
});
afterAll(async () => {
  if (saved === undefined) delete process.env.DOCKET_TOKEN;
  else process.env.DOCKET_TOKEN = saved;
  await fake?.close();
  await w?.remove();
});

describe("Codex CLI under the sandbox settings docket hook install writes", () => {
  it("an allowed command does not see an approver's token from Codex's environment", async () => {
    const hook = docketHookCommand("codex", w.config);
    await runCodex(w, fake.url, (toml) => withRegistration("codex", toml, hook, 60, "config.toml"));
    const seen = await readFile(join(w.ws, "seen.txt"), "utf8");
    expect(seen).toBe("token=[]\n");
    const trail = await readHostTrail(w.ws);
    expect(trail.statusByRule()).toEqual({ "shell-ok": "ok" });
  }, 200_000);
});
