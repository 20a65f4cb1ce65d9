import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { hookCall } from "../support/hook-call.js";
import { useInstalledCli } from "../support/installed-cli.js";

// What a hooked call loads in process, in the CLI as users install it (the packed package's
// bundle): a hook answer needs the policy, the shell analysis and the store, never a model
// provider, the MCP SDK, a web server, the telemetry SDK or a tool handler's packages. The
// report (test/fixtures/load-report) names every package the process requires or imports.
useInstalledCli();

const report = fileURLToPath(new URL("../fixtures/load-report/register.mjs", import.meta.url));

// Packages of other commands (serve, gateway, mcp, run with a model, fetch_url, diffs, sign-in).
const NEVER_FOR_A_HOOK_ANSWER = [
  "@ai-sdk/anthropic",
  "@ai-sdk/openai",
  "@ai-sdk/openai-compatible",
  "@ai-sdk/provider-utils",
  "ai",
  "@modelcontextprotocol/sdk",
  "hono",
  "@hono/node-server",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/sdk-metrics",
  "@opentelemetry/exporter-trace-otlp-http",
  "node-html-markdown",
  "diff",
  "jose",
  "ajv",
  "pg",
  "commander",
];

let root: string;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "docket-hook-imports-"));
  await writeFile(
    join(root, "docket.yaml"),
    "policy:\n  rules:\n    - { id: ls-ok, tool: run_command, command: 'ls *', decision: allow }\n    - { id: no-rm, tool: run_command, command: 'rm *', decision: deny }\n",
  );
  const home = join(root, ".home");
  await mkdir(home);
  env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
  delete env.DOCKET_CONFIG;
  delete env.DOCKET_STORE;
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** One in-process hook call of the installed CLI, and the packages its process loaded. */
async function hookLoading(
  command: string,
  id: string,
): Promise<{ decision: string; loaded: Set<string>; stderr: string }> {
  const payload = JSON.stringify({
    session_id: "imports-1",
    cwd: root,
    hook_event_name: "PreToolUse",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: id,
  });
  const { stdout, stderr } = await hookCall(
    { cwd: root, env, nodeArgs: ["--import", report] },
    [],
    payload,
  );
  const answer = JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string } };
  const loaded = new Set(
    stderr
      .split("\n")
      .filter((line) => line.startsWith("loaded-package "))
      .map((line) => line.slice("loaded-package ".length)),
  );
  return { decision: answer.hookSpecificOutput.permissionDecision, loaded, stderr };
}

describe("a hooked call answered in process by the installed CLI", () => {
  it("loads the store's driver and none of the packages only other commands need", async () => {
    const allowed = await hookLoading("ls -la", "toolu_imports_1");
    expect(allowed.decision, allowed.stderr).toBe("allow");
    // The report works: the store's driver is loaded, since the call was recorded.
    expect(allowed.loaded).toContain("node:sqlite");
    expect(NEVER_FOR_A_HOOK_ANSWER.filter((name) => allowed.loaded.has(name))).toEqual([]);

    const denied = await hookLoading("rm -rf build", "toolu_imports_2");
    expect(denied.decision, denied.stderr).toBe("deny");
    expect(NEVER_FOR_A_HOOK_ANSWER.filter((name) => denied.loaded.has(name))).toEqual([]);

    // Both were recorded: the lean load left nothing of the trail out.
    const store = await openStore(`sqlite:${join(root, ".docket", "docket.db")}`);
    try {
      const events = await store.listEvents({});
      const calls = new Set(events.map((e) => e.callId));
      expect(calls).toContain("toolu_imports_1");
      expect(calls).toContain("toolu_imports_2");
    } finally {
      await store.close();
    }
  });
});
