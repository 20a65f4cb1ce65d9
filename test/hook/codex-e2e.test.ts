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
import { startFakeResponsesAgent } from "../support/fake-providers/fake-responses-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";

// The real Codex CLI (0.171.0, its native binary), pointed at a fake Responses API through a
// `model_providers` entry in config.toml, asks for two exec_command calls; Codex reports them to
// its PreToolUse hook as `Bash` with `tool_input.command` (its pre-tool-use.command.input schema).
// docket is registered with the block `docket hook install codex` writes. Codex reviews hooks
// before it runs them (hook trust); a test has nobody to review, so it passes
// --dangerously-bypass-hook-trust. Codex's own sandbox is off (danger-full-access): its helper
// binaries refuse to live under /tmp, and docket is the gate under test.
const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const codex = join(root, "node_modules", ".bin", "codex");
const main = join(root, "src", "cli", "main.ts");
const tsx = import.meta.resolve("tsx");

let dir: string;
let fake: FakeServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-codex-e2e-"));
  fake = await startFakeResponsesAgent(["touch denied-effect", "mkdir allowed-effect"]);
});
afterAll(async () => {
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("Codex CLI with docket as its PreToolUse hook", () => {
  it("runs the command docket allows, not the one it denies, and both are in the audit trail", async () => {
    const ws = join(dir, "ws");
    const codexHome = join(dir, "home", ".codex");
    await mkdir(ws, { recursive: true });
    await mkdir(codexHome, { recursive: true });
    const config = join(ws, "docket.yaml");
    await writeFile(
      config,
      [
        "policy:",
        "  rules:",
        "    - { id: no-touch, tool: run_command, command: 'touch *', decision: deny }",
        "    - { id: mkdir-ok, tool: run_command, command: 'mkdir *', decision: allow }",
        "",
      ].join("\n"),
    );
    const hook = `${JSON.stringify(process.execPath)} --import ${JSON.stringify(tsx)} ${JSON.stringify(main)} hook codex --config ${JSON.stringify(config)}`;
    const provider = [
      'model = "gpt-fake"',
      'model_provider = "fake"',
      "[model_providers.fake]",
      'name = "fake"',
      `base_url = "${fake.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "FAKE_CODEX_KEY"',
      "",
    ].join("\n");
    await writeFile(
      join(codexHome, "config.toml"),
      withRegistration("codex", provider, hook, 60, "config.toml"),
    );
    const codexRun = run(
      codex,
      [
        "exec",
        "--dangerously-bypass-hook-trust",
        "--skip-git-repo-check",
        "-s",
        "danger-full-access",
        "make the two things",
      ],
      {
        cwd: ws,
        env: {
          ...process.env,
          HOME: join(dir, "home"),
          CODEX_HOME: codexHome,
          FAKE_CODEX_KEY: "fake",
        },
        timeout: 150_000,
      },
    );
    // codex exec reads a prompt from a standard input that is not a terminal, until it ends.
    codexRun.child.stdin?.end();
    await codexRun;
    expect(existsSync(join(ws, "denied-effect"))).toBe(false);
    expect(existsSync(join(ws, "allowed-effect"))).toBe(true);

    const store = await openStore(`sqlite:${join(ws, ".docket", "docket.db")}`, { readOnly: true });
    try {
      const sessions = await store.listSessions();
      expect(sessions.map((session) => session.principal)).toEqual(["codex"]);
      const calls = await store.listCalls({ sessionId: sessions[0]?.id });
      const byRule = Object.fromEntries(calls.map((call) => [call.rule, call.status]));
      expect(byRule).toEqual({ "no-touch": "refused", "mkdir-ok": "ok" });
      expect((await store.verifyChain()).ok).toBe(true);
    } finally {
      await store.close();
    }
  }, 200_000);
});
