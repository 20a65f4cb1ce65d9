import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { estimateTokens } from "../../src/tool/tool-surface.js";
import { everythingBin } from "../mcp/support/mcp-fixtures.js";
import { runDocket } from "../support/run-docket.js";

async function project(yaml: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "docket-tools-")));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, "docket.yaml"), `workspace: ${dir}\n${yaml}`);
  return dir;
}

describe("docket tools", () => {
  it("prints the menu the model sees, MCP tools included, with estimated tokens; creates no store", async () => {
    const dir = await project(
      `mcp:\n  servers:\n    everything: { command: ${everythingBin}, args: [stdio] }\n`,
    );
    const json = await runDocket(["tools", "--json"], { cwd: dir });
    expect(json.code).toBe(0);
    const rows = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    const names = rows.map((r) => r.name);
    expect(names).toEqual(expect.arrayContaining(["read_file", "run_command", "everything__echo"]));
    const echo = rows.find((r) => r.name === "everything__echo");
    expect(echo.inputSchema.properties.message).toBeDefined();
    const text = JSON.stringify({
      name: echo.name,
      description: echo.description,
      input_schema: echo.inputSchema,
    });
    expect(echo.tokens).toBe(estimateTokens(text));

    const table = await runDocket(["tools", "--no-mcp"], { cwd: dir });
    expect(table.stdout).toMatch(/^read_file {2}\(~\d+ tokens\)$/m);
    expect(table.stdout).not.toContain("everything__");
    expect(table.stdout).toMatch(
      /7 tools, ~\d+ tokens \(\d+ bytes\) sent with every model request/,
    );
    const { existsSync } = await import("node:fs");
    expect(existsSync(join(dir, ".docket"))).toBe(false);
  });

  it("--lint passes the built-in tools and reports an MCP server's weak descriptions, exit 1", async () => {
    const clean = await project("");
    const ok = await runDocket(["tools", "--lint"], { cwd: clean });
    expect(ok).toMatchObject({ code: 0, stdout: "No findings.\n" });

    const dir = await project(
      `mcp:\n  servers:\n    everything: { command: ${everythingBin}, args: [stdio] }\n`,
    );
    const linted = await runDocket(["tools", "--lint", "--json"], { cwd: dir });
    expect(linted.code).toBe(1);
    const findings = linted.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(findings.length).toBeGreaterThan(0);
    for (const finding of findings) {
      expect(finding.tool).toMatch(/^everything__/);
      expect(finding.code).toMatch(
        /^(no_when_to_use|undescribed_parameter|enum_in_prose|one_word_description|no_description)$/,
      );
    }
  });
});
