import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostName } from "../../src/hook/host-registry.js";
import { mapHostTool } from "../../src/hook/map-host-tool.js";
import { startFakeAnthropicAgent } from "../support/fake-providers/fake-anthropic-agent.js";
import { startFakeGeminiAgent } from "../support/fake-providers/fake-gemini-agent.js";
import { startFakeResponsesAgent } from "../support/fake-providers/fake-responses-agent.js";
import type { FakeServer } from "../support/fake-providers/fake-server.js";
import {
  claudeEnv,
  type HostWorkspace,
  hostBinary,
  hostWorkspace,
  runCodex,
} from "../support/host-e2e.js";

// Each real host (the pinned versions in package.json), run once against a fake model that
// answers "done.", offers the model its whole tool list: every tool there must be in docket's
// table for that host, so a host upgrade that adds a tool fails here instead of running it
// unjudged (docket denies an unmapped tool at run time; this keeps the table honest).
const run = promisify(execFile);

let w: HostWorkspace;
const fakes: FakeServer[] = [];
beforeAll(async () => {
  w = await hostWorkspace("tool-lists", { dirs: ["home/.gemini", "home/.codex", "ws/.claude"] });
});
afterAll(async () => {
  for (const fake of fakes) await fake.close();
  await w?.remove();
});

function offered(fake: FakeServer, names: (body: Record<string, unknown>) => string[]): string[] {
  const all = fake.requests.flatMap((request) =>
    typeof request.body === "object" && request.body !== null
      ? names(request.body as Record<string, unknown>)
      : [],
  );
  return [...new Set(all)].sort();
}

function unmapped(host: HostName, tools: readonly string[]): string[] {
  return tools.filter((tool) => mapHostTool(host, tool) === undefined);
}

type Named = { name?: string; type?: string };

describe("every tool the real host offers its model is in docket's table", () => {
  it("Claude Code", async () => {
    const fake = await startFakeAnthropicAgent("Bash", []);
    fakes.push(fake);
    await run(hostBinary("claude"), ["-p", "hi", "--output-format", "json"], {
      cwd: w.ws,
      env: claudeEnv(w.home, fake.url),
      timeout: 150_000,
    });
    // Deferred tools are named in a system message, one a line, for the model to load later.
    const deferred = (body: Record<string, unknown>) => {
      const text = JSON.stringify(body.messages ?? []);
      const list =
        /deferred tools are now available via ToolSearch.*?calling them:((?:\\n[A-Za-z_]\w*)+)/.exec(
          text,
        );
      return (list?.[1] ?? "").split("\\n").filter((name) => name !== "");
    };
    const tools = offered(fake, (body) => [
      ...((body.tools ?? []) as Named[]).map((t) => t.name ?? ""),
      ...deferred(body),
    ]);
    expect(tools).toContain("Bash");
    expect(tools).toContain("WebFetch");
    expect(unmapped("claude-code", tools), tools.join(", ")).toEqual([]);
  }, 200_000);

  it("gemini-cli", async () => {
    const fake = await startFakeGeminiAgent("run_shell_command", []);
    fakes.push(fake);
    await writeFile(
      join(w.home, ".gemini", "settings.json"),
      JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
    );
    await run(hostBinary("gemini"), ["-p", "hi", "--approval-mode", "yolo", "-o", "json"], {
      cwd: w.ws,
      env: {
        ...process.env,
        HOME: w.home,
        GEMINI_API_KEY: "fake-key",
        GOOGLE_GEMINI_BASE_URL: fake.url,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      },
      timeout: 150_000,
    });
    const tools = offered(fake, (body) =>
      ((body.tools ?? []) as { functionDeclarations?: Named[] }[]).flatMap((group) =>
        (group.functionDeclarations ?? []).map((t) => t.name ?? ""),
      ),
    );
    expect(tools).toContain("run_shell_command");
    expect(unmapped("gemini-cli", tools), tools.join(", ")).toEqual([]);
  }, 200_000);

  it("Codex CLI", async () => {
    const fake = await startFakeResponsesAgent([]);
    fakes.push(fake);
    await runCodex(w, fake.url, (toml) => toml, "hi");
    // Functions by name; the built-in kinds (web_search, local_shell) by their type.
    const tools = offered(fake, (body) =>
      ((body.tools ?? []) as Named[]).map((t) => t.name ?? t.type ?? ""),
    );
    expect(tools.length).toBeGreaterThan(0);
    expect(unmapped("codex", tools), tools.join(", ")).toEqual([]);
  }, 200_000);
});
