import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { tempDir } from "../loop/support/temp-dir.js";
import { installedCliPath, useInstalledCli } from "../support/installed-cli.js";
import { runDocket } from "../support/run-docket.js";

const exec = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
// The CLI as users install it (test/support/installed-cli.ts), installed before the tests.
useInstalledCli();

/** The fenced blocks of a markdown file in the given language, in order. */
function blocks(file: string, lang: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  return [
    ...text.matchAll(new RegExp(`\`\`\`${lang}(?:[ \t][^\n]*)?\\n([\\s\\S]*?)\`\`\``, "g")),
  ].map((match) => match[1] ?? "");
}

function isolated(dir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env))
    if (!/^(DOCKET_|ANTHROPIC_|OPENAI_|OLLAMA_)/.test(key)) env[key] = value;
  return { ...env, HOME: dir, XDG_CONFIG_HOME: join(dir, ".config"), ...extra };
}

/** `npx docket …` as the docs write it, run by the installed CLI. */
async function shell(line: string, cwd: string, env: NodeJS.ProcessEnv = {}) {
  const prelude = `docket() { "${process.execPath}" "${installedCliPath()}" "$@"; }; npx() { shift 0; "$@"; }; `;
  try {
    const { stdout, stderr } = await exec("bash", ["-c", prelude + line], {
      cwd,
      env: isolated(cwd, env),
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("README: use it in your project", () => {
  it("init, doctor, then docket from a subdirectory uses the project's docket.yaml", async () => {
    const dir = await tempDir("docket-readme-");
    const install = blocks("README.md", "sh").find((block) => block.includes("npm i docket"));
    const lines = (install ?? "").split("\n").filter((line) => line.startsWith("npx docket"));
    expect(lines.map((line) => line.split("#")[0]?.trim())).toEqual([
      "npx docket init",
      "npx docket doctor",
    ]);
    for (const line of lines) {
      const result = await shell(line, dir);
      expect(result.code, `${line}: ${result.stderr}`).toBe(0);
    }
    mkdirSync(join(dir, "src", "deep"), { recursive: true });
    const config = await shell("docket config --json", join(dir, "src", "deep"));
    expect(config.stderr).toContain(`docket: using ${join(dir, "docket.yaml")}`);
    expect(config.stdout).toContain(`"value":"sqlite:${join(dir, ".docket", "docket.db")}"`);
  });
});

describe("docs/cli.md", () => {
  it("a script gates on policy check: deny is exit 1", async () => {
    const dir = await tempDir("docket-clidoc-");
    await shell("docket init", dir);
    const gate = blocks("docs/cli.md", "sh")[0] ?? "";
    expect(gate).toContain("docket policy check");
    const denied = await shell(gate.replace("then npm publish;", "then echo ran;"), dir);
    expect(denied.stdout).not.toContain("ran");
    writeFileSync(
      join(dir, "docket.yaml"),
      "policy:\n  rules:\n    - { decision: allow, tool: run_command }\n",
    );
    const allowed = await shell(gate.replace("then npm publish;", "then echo ran;"), dir);
    expect(allowed.stdout).toContain("ran");
  });
});

describe("docs/configuration.md", () => {
  it("the VAR example loads with the variable set, and names the line when it is not", async () => {
    const dir = await tempDir("docket-confdoc-");
    const yaml = blocks("docs/configuration.md", "yaml")[0] ?? "";
    writeFileSync(join(dir, "docket.yaml"), yaml);
    const set = await runDocket(["config"], {
      cwd: dir,
      env: isolated(dir, { GITHUB_TOKEN: "ghp_0123456789abcdefghijklmnop" }),
    });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain(`sqlite:${join(dir, ".docket", "docket.db")}`);
    expect(set.stdout).not.toContain("0123456789abcdef");
    const unset = await runDocket(["config"], { cwd: dir, env: isolated(dir) });
    expect(unset.code).not.toBe(0);
    expect(unset.stderr).toMatch(
      /docket\.yaml:6: mcp\.servers\.github\.env\.GITHUB_TOKEN names \$\{GITHUB_TOKEN\}, which is not set/,
    );
  });

  it("the per-provider model example loads, each provider with its own address", async () => {
    const dir = await tempDir("docket-confdoc-");
    const yaml = blocks("docs/configuration.md", "yaml")[1] ?? "";
    expect(yaml).toContain("providers:");
    writeFileSync(join(dir, "docket.yaml"), yaml);
    const result = await runDocket(["config", "--json"], { cwd: dir, env: isolated(dir) });
    expect(result.code, result.stderr).toBe(0);
    const model = result.stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { key: string; value: unknown })
      .find((row) => row.key === "model");
    expect(model?.value).toMatchObject({
      name: "openai-compatible:qwen2.5-coder",
      providers: { ollama: { base_url: "http://gpu-box:11434/v1" } },
    });
  });

  it("docket config prints the rows the page shows", async () => {
    const dir = await tempDir("docket-confdoc-");
    writeFileSync(join(dir, "docket.yaml"), "approvers:\n  me: { roles: [lead] }\n");
    const result = await runDocket(["config"], { cwd: dir, env: isolated(dir) });
    const shown = (blocks("docs/configuration.md", "console")[0] ?? "").split("\n").slice(1);
    for (const key of ["(project file)", "(user file)", "store", "workspace", "approvers.me"]) {
      expect(shown.some((line) => line.startsWith(key))).toBe(true);
      expect(result.stdout.split("\n").some((line) => line.startsWith(key))).toBe(true);
    }
  });
});

describe("docs/policy.md: a refused call", () => {
  it("prints exactly what the page shows, and exits 1", async () => {
    const console = blocks("docs/policy.md", "console").find((block) =>
      block.includes("refused (invalid_arguments)"),
    );
    const [command, ...output] = (console ?? "").trimEnd().split("\n");
    // A home of its own: docket keeps state (the parse cache) under it, never in the repository.
    const home = await tempDir("docket-docs-home-");
    const result = await shell(
      String(command).replace(/^\$ /, ""),
      join(root, "examples", "policy"),
      { HOME: home, XDG_CONFIG_HOME: join(home, ".config") },
    );
    expect(result.code).toBe(1);
    expect(result.stdout.trimEnd()).toBe(output.join("\n"));
  });
});
