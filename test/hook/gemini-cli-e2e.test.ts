import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withRegistration } from "../../src/hook/hook-registration.js";
import { startFakeGeminiAgent } from "../support/fake-providers/fake-gemini-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import {
  docketHookCommand,
  type HostWorkspace,
  hostBinary,
  hostWorkspace,
  readHostTrail,
  runGemini,
} from "../support/host-e2e.js";

// The real gemini-cli (0.61.0), pointed at a fake Gemini API on 127.0.0.1
// (GOOGLE_GEMINI_BASE_URL) that asks for two run_shell_command calls. docket is its BeforeTool
// and AfterTool hook, registered in the user's settings.json as geminicli.com/docs/hooks/reference
// documents (`hooks.BeforeTool[].matcher`, `hooks[].type: "command"`, `timeout` in ms). YOLO
// mode: gemini-cli approves every call itself, so docket is the only gate.
const run = promisify(execFile);

let w: HostWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await hostWorkspace("gemini", { dirs: ["home/.gemini"] });
  fake = await startFakeGeminiAgent("run_shell_command", [
    { calls: [{ name: "run_shell_command", args: { command: "touch denied-effect" } }] },
    { calls: [{ name: "run_shell_command", args: { command: "mkdir allowed-effect" } }] },
  ]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("gemini-cli with docket as its BeforeTool hook", () => {
  it("runs the shell call docket allows, not the one it denies, and both are in the audit trail", async () => {
    const { ws } = w;
    await runGemini(w, fake.url, "make the two things");
    expect(existsSync(join(ws, "denied-effect"))).toBe(false);
    expect(existsSync(join(ws, "allowed-effect"))).toBe(true);

    const trail = await readHostTrail(ws);
    expect(trail.sessions.map((session) => session.principal)).toEqual(["gemini-cli"]);
    expect(trail.statusByRule()).toEqual({ "no-touch": "refused", "mkdir-ok": "ok" });
    expect(trail.verified).toBe(true);
  }, 200_000);

  it("refuses, in words, a call docket asks about under -p: headless, gemini-cli's own prompt would wait forever", async () => {
    const asked = await hostWorkspace("gemini-ask", {
      dirs: ["home/.gemini"],
      policy: [
        "policy:",
        "  rules:",
        "    - { id: ask-mkdir, tool: run_command, command: 'mkdir *', decision: ask }",
        "",
      ].join("\n"),
    });
    const askFake = await startFakeGeminiAgent("run_shell_command", [
      { calls: [{ name: "run_shell_command", args: { command: "mkdir asked-effect" } }] },
    ]);
    try {
      await writeFile(
        join(asked.home, ".gemini", "settings.json"),
        withRegistration(
          "gemini-cli",
          JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
          docketHookCommand("gemini-cli", asked.config),
          60,
          "settings.json",
        ),
      );
      const started = Date.now();
      await run(
        hostBinary("gemini"),
        ["-p", "make the thing", "--approval-mode", "yolo", "-o", "json"],
        {
          cwd: asked.ws,
          env: {
            ...process.env,
            HOME: asked.home,
            GEMINI_API_KEY: "fake-key",
            GOOGLE_GEMINI_BASE_URL: askFake.url,
            GEMINI_CLI_TRUST_WORKSPACE: "true",
          },
          // Before this, gemini-cli waited here until it was killed.
          timeout: 120_000,
        },
      );
      expect(Date.now() - started).toBeLessThan(120_000);
      expect(existsSync(join(asked.ws, "asked-effect"))).toBe(false);
      const trail = await readHostTrail(asked.ws);
      expect(trail.statusByRule()).toEqual({ "ask-mkdir": "refused" });
      expect(trail.calls[0]?.reason).toBe("approval_denied");
      // The refusal says why, in the trail as to the model.
      expect(JSON.stringify(trail.events)).toContain("runs headless");
      expect(trail.verified).toBe(true);
    } finally {
      await askFake.close();
      await asked.remove();
    }
  }, 200_000);
});
