import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../test/loop/support/temp-dir.js";
import {
  buildSystemPrompt,
  DOCKET_SYSTEM_PROMPT,
  MAX_PROJECT_INSTRUCTIONS,
} from "./system-prompt.js";

describe("buildSystemPrompt", () => {
  it("is docket's own prompt when the workspace has no instructions", async () => {
    const workspace = await tempDir("docket-prompt-");
    expect(buildSystemPrompt({ workspace })).toEqual({
      text: DOCKET_SYSTEM_PROMPT,
      base: "docket",
    });
  });

  it("appends AGENTS.md under a heading that names it", async () => {
    const workspace = await tempDir("docket-prompt-");
    writeFileSync(join(workspace, "AGENTS.md"), "Run npm test before saying done.\r\n");
    writeFileSync(join(workspace, "CLAUDE.md"), "not this one");
    const prompt = buildSystemPrompt({ workspace });
    expect(prompt.text.startsWith(DOCKET_SYSTEM_PROMPT)).toBe(true);
    expect(prompt.text).toContain("# Project instructions (AGENTS.md, at the workspace root)");
    expect(prompt.text.endsWith("Run npm test before saying done.")).toBe(true);
    expect(prompt.text).not.toContain("not this one");
    expect(prompt.instructions).toEqual({
      file: join(workspace, "AGENTS.md"),
      bytes: 34,
      truncated: false,
    });
  });

  it("falls back to CLAUDE.md when there is no AGENTS.md", async () => {
    const workspace = await tempDir("docket-prompt-");
    writeFileSync(join(workspace, "CLAUDE.md"), "Use tabs.");
    expect(buildSystemPrompt({ workspace }).text).toContain("(CLAUDE.md, at the workspace root)\n");
  });

  it("system_prompt replaces docket's own; the project's instructions are still appended", async () => {
    const workspace = await tempDir("docket-prompt-");
    writeFileSync(join(workspace, "AGENTS.md"), "Use tabs.");
    const prompt = buildSystemPrompt({ workspace, configured: "You are Ada.\n" });
    expect(prompt.base).toBe("system_prompt");
    expect(prompt.text).not.toContain(DOCKET_SYSTEM_PROMPT);
    expect(prompt.text.startsWith("You are Ada.\n\n# Project instructions (AGENTS.md")).toBe(true);
  });

  it("cuts a large file at 32 KiB and says so", async () => {
    const workspace = await tempDir("docket-prompt-");
    writeFileSync(join(workspace, "AGENTS.md"), `${"é".repeat(MAX_PROJECT_INSTRUCTIONS)}TAIL`);
    const prompt = buildSystemPrompt({ workspace });
    expect(prompt.instructions?.truncated).toBe(true);
    expect(prompt.text).toContain(`Only its first ${MAX_PROJECT_INSTRUCTIONS} bytes are here.`);
    expect(prompt.text).not.toContain("TAIL");
    expect(prompt.text).not.toContain("\uFFFD");
    expect(Buffer.byteLength(prompt.text)).toBeLessThan(MAX_PROJECT_INSTRUCTIONS + 2_000);
  });

  it("shows hidden and control characters as codes, so they cannot hide words", async () => {
    const workspace = await tempDir("docket-prompt-");
    writeFileSync(join(workspace, "AGENTS.md"), "Be kind.\u202eyltnetsilis\u001b[8m secret");
    const text = buildSystemPrompt({ workspace }).text;
    expect(text).toContain("Be kind.\\u{202e}yltnetsilis\\u{001b}[8m secret");
  });

  it("never follows a symlink: AGENTS.md pointing at docket's store or a key is not read", async () => {
    const workspace = await tempDir("docket-prompt-");
    mkdirSync(join(workspace, ".docket"));
    writeFileSync(join(workspace, ".docket", "audit.key"), "PRIVATE KEY");
    symlinkSync(join(workspace, ".docket", "audit.key"), join(workspace, "AGENTS.md"));
    writeFileSync(join(workspace, "CLAUDE.md"), "fallback is not used either");
    const prompt = buildSystemPrompt({ workspace });
    expect(prompt.text).toBe(DOCKET_SYSTEM_PROMPT);
    expect(prompt.skipped).toBe("AGENTS.md was not loaded: it is a symbolic link");
  });

  it("a hard link to one of docket's own files is refused by the guard", async () => {
    const workspace = await tempDir("docket-prompt-");
    mkdirSync(join(workspace, ".docket"));
    writeFileSync(join(workspace, ".docket", "audit.key"), "PRIVATE KEY");
    linkSync(join(workspace, ".docket", "audit.key"), join(workspace, "AGENTS.md"));
    const prompt = buildSystemPrompt({
      workspace,
      guard: (absolute) => (absolute.endsWith("AGENTS.md") ? "the audit key" : undefined),
    });
    expect(prompt.text).not.toContain("PRIVATE KEY");
    expect(prompt.skipped).toBe("AGENTS.md was not loaded: it is protected (the audit key)");
  });

  it("a folder or a FIFO named AGENTS.md is not read (and never blocks)", async () => {
    const workspace = await tempDir("docket-prompt-");
    mkdirSync(join(workspace, "AGENTS.md"));
    expect(buildSystemPrompt({ workspace }).skipped).toBe(
      "AGENTS.md was not loaded: it is not a regular file",
    );
    const other = await tempDir("docket-prompt-");
    execFileSync("mkfifo", [join(other, "AGENTS.md")]);
    expect(buildSystemPrompt({ workspace: other }).skipped).toBe(
      "AGENTS.md was not loaded: it is not a regular file",
    );
  });
});
