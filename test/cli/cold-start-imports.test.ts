import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeScriptedProject } from "./support/scripted-project.js";

// What a cold process loads for a command: docket from source (tsx), with a hook that names
// every package it imports or requires (test/fixtures/load-report). Each command must load
// only what it needs: a policy check no model provider, MCP, web server or database driver.
const exec = promisify(execFile);
const main = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const tsx = import.meta.resolve("tsx");
const report = fileURLToPath(new URL("../fixtures/load-report/register.mjs", import.meta.url));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "docket-cold-imports-"));
  await writeScriptedProject(dir);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The packages `docket ARGS` loaded, by name. */
async function packagesLoadedBy(args: readonly string[]): Promise<Set<string>> {
  const { stderr } = await exec(
    process.execPath,
    ["--import", report, "--import", tsx, main, ...args],
    {
      cwd: dir,
      env: { ...process.env, HOME: dir, DOCKET_CONFIG: "", DOCKET_STORE: "", XDG_CONFIG_HOME: "" },
    },
  ).catch((error: { code?: unknown; stderr?: string }) => {
    // A policy check that asks exits 3: what it loaded is still reported.
    if (error.code === 3 && typeof error.stderr === "string") return { stderr: error.stderr };
    throw error;
  });
  return new Set(
    stderr
      .split("\n")
      .filter((line) => line.startsWith("loaded-package "))
      .map((line) => line.slice("loaded-package ".length)),
  );
}

// Packages only other commands need (serve, gateway, mcp, fetch_url, a model provider, a store).
const NEVER_FOR_A_POLICY_CHECK = [
  "@ai-sdk/anthropic",
  "@ai-sdk/openai",
  "@ai-sdk/openai-compatible",
  "@ai-sdk/provider-utils",
  "@modelcontextprotocol/sdk",
  "hono",
  "@hono/node-server",
  "node:sqlite",
  "pg",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/sdk-metrics",
  "node-html-markdown",
  "diff",
  "ignore",
  "zod-to-json-schema",
  // Only a JSON Schema tool (MCP, --tool) needs ajv; the built-ins are zod.
  "ajv",
];

describe("a cold docket process", () => {
  it("loads for `policy check` no provider, MCP SDK, web server, database driver or tool handler", async () => {
    const loaded = await packagesLoadedBy(["policy", "check", "run_command", '{"command":"ls"}']);
    // The report works (a policy check always compiles globs); zod is not asserted: whether the
    // config's schema loads depends on the YAML parse cache an earlier command may have written.
    expect(loaded).toContain("picomatch");
    expect(NEVER_FOR_A_POLICY_CHECK.filter((name) => loaded.has(name))).toEqual([]);
  });

  it("reads `policy check TOOL ARGS [--json]` without commander, and any other form with it", async () => {
    const plain = await packagesLoadedBy([
      "policy",
      "check",
      "run_command",
      '{"command":"ls"}',
      "--json",
    ]);
    expect(plain).not.toContain("commander");
    const flagged = await packagesLoadedBy([
      "policy",
      "check",
      "--principal",
      "ada",
      "run_command",
      '{"command":"ls"}',
    ]);
    expect(flagged).toContain("commander");
  });

  it("loads no tree-sitter for a plain-words command, and loads it for one with syntax", async () => {
    const plain = await packagesLoadedBy([
      "policy",
      "check",
      "run_command",
      '{"command":"ls -la src"}',
    ]);
    expect(plain).not.toContain("web-tree-sitter");
    const piped = await packagesLoadedBy([
      "policy",
      "check",
      "run_command",
      '{"command":"ls | wc"}',
    ]);
    expect(piped).toContain("web-tree-sitter");
  });

  it("loads no YAML parser for a docket.yaml an earlier process has parsed", async () => {
    await packagesLoadedBy(["policy", "check", "read_file", '{"path":"a"}']);
    const again = await packagesLoadedBy(["policy", "check", "read_file", '{"path":"a"}']);
    expect(again).not.toContain("yaml");
  });

  it("loads for a scripted `run` no provider, MCP SDK, web server or handler it does not call", async () => {
    const loaded = await packagesLoadedBy(["run", "Hi."]);
    expect(loaded).toContain("node:sqlite");
    const never = NEVER_FOR_A_POLICY_CHECK.filter((name) => name !== "node:sqlite");
    expect(never.filter((name) => loaded.has(name))).toEqual([]);
  });

  it("loads for `--version` no command at all", async () => {
    const loaded = await packagesLoadedBy(["--version"]);
    expect([...loaded].filter((name) => !["commander", "tsx", "esbuild"].includes(name))).toEqual(
      [],
    );
  });
});
