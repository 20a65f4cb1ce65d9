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
import { startFakeGeminiAgent } from "../support/fake-providers/fake-gemini-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";

// The real gemini-cli (0.61.0), pointed at a fake Gemini API on 127.0.0.1
// (GOOGLE_GEMINI_BASE_URL) that asks for two run_shell_command calls. docket is its BeforeTool
// and AfterTool hook, registered in the user's settings.json as geminicli.com/docs/hooks/reference
// documents (`hooks.BeforeTool[].matcher`, `hooks[].type: "command"`, `timeout` in ms). YOLO
// mode: gemini-cli approves every call itself, so docket is the only gate.
const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const gemini = join(root, "node_modules", ".bin", "gemini");
const main = join(root, "src", "cli", "main.ts");
const tsx = import.meta.resolve("tsx");

let dir: string;
let fake: FakeServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-gemini-e2e-"));
  fake = await startFakeGeminiAgent("run_shell_command", [
    { calls: [{ name: "run_shell_command", args: { command: "touch denied-effect" } }] },
    { calls: [{ name: "run_shell_command", args: { command: "mkdir allowed-effect" } }] },
  ]);
});
afterAll(async () => {
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("gemini-cli with docket as its BeforeTool hook", () => {
  it("runs the shell call docket allows, not the one it denies, and both are in the audit trail", async () => {
    const ws = join(dir, "ws");
    const home = join(dir, "home");
    await mkdir(ws, { recursive: true });
    await mkdir(join(home, ".gemini"), { recursive: true });
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
    const hook = `${JSON.stringify(process.execPath)} --import ${JSON.stringify(tsx)} ${JSON.stringify(main)} hook gemini-cli --config ${JSON.stringify(config)}`;
    // What `docket hook install gemini-cli` writes, beside the user's own settings.
    await writeFile(
      join(home, ".gemini", "settings.json"),
      withRegistration(
        "gemini-cli",
        JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
        hook,
        60,
        "settings.json",
      ),
    );
    await run(gemini, ["-p", "make the two things", "--approval-mode", "yolo", "-o", "json"], {
      cwd: ws,
      env: {
        ...process.env,
        HOME: home,
        GEMINI_API_KEY: "fake-key",
        GOOGLE_GEMINI_BASE_URL: fake.url,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      },
      timeout: 150_000,
    });
    expect(existsSync(join(ws, "denied-effect"))).toBe(false);
    expect(existsSync(join(ws, "allowed-effect"))).toBe(true);

    const store = await openStore(`sqlite:${join(ws, ".docket", "docket.db")}`, { readOnly: true });
    try {
      const sessions = await store.listSessions();
      expect(sessions.map((session) => session.principal)).toEqual(["gemini-cli"]);
      const calls = await store.listCalls({ sessionId: sessions[0]?.id });
      const byRule = Object.fromEntries(calls.map((call) => [call.rule, call.status]));
      expect(byRule).toEqual({ "no-touch": "refused", "mkdir-ok": "ok" });
      expect((await store.verifyChain()).ok).toBe(true);
    } finally {
      await store.close();
    }
  }, 200_000);
});
