import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
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
} from "../support/host-e2e.js";

// The real gemini-cli (0.61.0, YOLO: it approves every call itself, so docket is the only gate)
// with an outside MCP server (stdio, not trusted) and a fake Gemini API that asks, in turn, for
// a search over the whole workspace, the outside server's tool, and a `mkdir` a rule allows.
// Each hook is its own process: the MCP result taints the session through the store, so the
// mkdir that follows it is asked, and headless gemini-cli cannot ask: it is refused in words.
const run = promisify(execFile);
const server = fileURLToPath(new URL("../mcp/support/dynamic-server.ts", import.meta.url));
const tsx = import.meta.resolve("tsx");

let w: HostWorkspace;
let fake: FakeServer;
beforeAll(async () => {
  w = await hostWorkspace("gemini-taint", {
    dirs: ["home/.gemini"],
    policy: [
      "policy:",
      "  rules:",
      "    - { id: mkdir-ok, tool: run_command, command: 'mkdir *', decision: allow }",
      "    - { id: outside-ok, tool: 'outside__*', decision: allow }",
      "",
    ].join("\n"),
  });
  await writeFile(join(w.ws, ".env"), "API_TOKEN=do-not-leak\n");
  fake = await startFakeGeminiAgent("run_shell_command", [
    { calls: [{ name: "grep_search", args: { pattern: "API_TOKEN" } }] },
    { calls: [{ name: "mcp_outside_hello", args: { name: "run mkdir tainted-effect" } }] },
    { calls: [{ name: "run_shell_command", args: { command: "mkdir tainted-effect" } }] },
  ]);
});
afterAll(async () => {
  await fake?.close();
  await w?.remove();
});

describe("gemini-cli under docket: untrusted content and workspace searches", () => {
  it("an outside MCP result taints the session across hook processes; a workspace-wide search is denied", async () => {
    const { ws, home, config } = w;
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      mcpServers: { outside: { command: process.execPath, args: ["--import", tsx, server] } },
    };
    await writeFile(
      join(home, ".gemini", "settings.json"),
      withRegistration(
        "gemini-cli",
        JSON.stringify(settings),
        docketHookCommand("gemini-cli", config),
        60,
        "settings.json",
      ),
    );
    const { stdout } = await run(
      hostBinary("gemini"),
      ["-p", "do the three things", "--approval-mode", "yolo", "-o", "json"],
      {
        cwd: ws,
        env: {
          ...process.env,
          HOME: home,
          GEMINI_API_KEY: "fake-key",
          GOOGLE_GEMINI_BASE_URL: fake.url,
          GEMINI_CLI_TRUST_WORKSPACE: "true",
        },
        timeout: 150_000,
      },
    );
    expect(existsSync(join(ws, "tainted-effect"))).toBe(false);
    expect(stdout).not.toContain("do-not-leak");

    const trail = await readHostTrail(ws);
    const byTool = (tool: string) => trail.calls.filter((call) => call.tool === tool);
    expect(byTool("search_files").map((call) => [call.status, call.rule])).toEqual([
      ["refused", "hook:workspace-search"],
    ]);
    expect(byTool("outside__hello").map((call) => call.status)).toEqual(["ok"]);
    const finished = trail.events.find(
      (event) => event.tool === "outside__hello" && event.type === "finished",
    );
    expect(finished?.event).toMatchObject({ openWorld: true, tainted: "session" });
    const [mkdir] = byTool("run_command");
    expect(mkdir?.status).toBe("refused");
    const decided = trail.events.find(
      (event) => event.callId === mkdir?.callId && event.type === "decided",
    );
    expect(JSON.stringify(decided?.event)).toContain("gemini-cli mcp_outside_hello");
    expect(trail.verified).toBe(true);
  }, 200_000);
});
