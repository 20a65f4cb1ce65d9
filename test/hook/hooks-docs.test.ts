import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load-config.js";
import { hookSettings } from "../../src/hook/hook-config.js";
import { mapHostTool } from "../../src/hook/map-host-tool.js";
import { settleEvents } from "../../src/hook/settle-event.js";

// docs/hooks.md's configuration example is real: it loads, and it means what the page says.
const page = readFileSync(fileURLToPath(new URL("../../docs/hooks.md", import.meta.url)), "utf8");
const example = /```yaml\n([\s\S]*?)```/.exec(page)?.[1] ?? "";

describe("docs/hooks.md", () => {
  it("its docket.yaml example loads with the defaults it names", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-hooks-docs-"));
    try {
      const file = join(dir, "docket.yaml");
      await writeFile(file, example);
      const config = loadConfig(file);
      const claude = hookSettings(config, "claude-code");
      expect(claude).toMatchObject({ ask: "host", waitMs: 120_000, timeoutMs: 10_000 });
      expect(hookSettings(config, "codex").ask).toBe("wait");
      expect(hookSettings(undefined, "opencode")).toEqual(hookSettings(config, "opencode"));
      expect(mapHostTool("claude-code", "NotebookEdit", claude.tools)).toMatchObject({
        tool: "edit_file",
        policyArgs: { path: "notebook_path" },
      });
      expect(mapHostTool("claude-code", "mcp__db__query", claude.tools)).toMatchObject({
        tool: "db__query",
        writes: false,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses ask: host for a host that would run the call", async () => {
    const dir = await mkdtemp(join(tmpdir(), "docket-hooks-docs-"));
    try {
      const file = join(dir, "docket.yaml");
      await writeFile(file, "hooks:\n  ask: host\n");
      expect(() => hookSettings(loadConfig(file), "codex")).toThrow(
        /docket.yaml:2: hooks.ask: codex/,
      );
      await writeFile(file, "hooks:\n  wait: soon\n");
      expect(() => hookSettings(loadConfig(file), "codex")).toThrow(/docket.yaml:2: hooks.wait/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("names the events that settle a refused ask, as docket registers them", () => {
    const section = page.split("### When the host's prompt refuses")[1] ?? "";
    const row = (host: string) =>
      [
        ...(section.split("\n").find((line) => line.startsWith(`| ${host} `)) ?? "").matchAll(
          /`([A-Za-z]+)`/g,
        ),
      ].map((m) => m[1]);
    expect(row("Claude Code")).toEqual(settleEvents("claude-code"));
    // Its row also names the events that do not come (AfterTool, and AfterAgent again).
    expect([...new Set(row("gemini-cli"))].filter((name) => name !== "AfterTool")).toEqual(
      settleEvents("gemini-cli"),
    );
  });
});
