import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./load-config.js";
import { readRuntimeConfig } from "./runtime-config.js";
import { sandboxSectionSchema, toSandboxSettings } from "./sandbox-section.js";

async function configFrom(text: string) {
  const dir = await mkdtemp(join(tmpdir(), "docket-config-"));
  await writeFile(join(dir, "docket.yaml"), text);
  return loadConfig("docket.yaml", { cwd: dir });
}

describe("sandbox section", () => {
  it("defaults to nothing set (mode auto is applied by the sandbox)", () => {
    expect(readRuntimeConfig(undefined).sandbox).toEqual({});
  });

  it("reads every key and resolves relative paths against docket.yaml's folder", () => {
    const section = sandboxSectionSchema.parse({
      mode: "required",
      network: "loopback",
      env: ["CI", "NPM_CONFIG_CACHE"],
      limits: { processes: 64, memory_mb: 1024 },
      hide: ["secrets.txt", "~/.aws", "/etc/docket"],
      writable: ["/var/cache/build"],
      walk_limit: 500,
      bwrap: "/opt/bin/bwrap",
    });
    expect(toSandboxSettings(section, "/ws/docket.yaml")).toEqual({
      mode: "required",
      network: "loopback",
      env: ["CI", "NPM_CONFIG_CACHE"],
      limits: { processes: 64, memoryMb: 1024 },
      hide: ["/ws/secrets.txt", "~/.aws", "/etc/docket"],
      writable: ["/var/cache/build"],
      walkLimit: 500,
      bwrapPath: "/opt/bin/bwrap",
    });
  });

  it.each([
    ["mode: sometimes", "sandbox.mode", 3],
    ["network: internet", "sandbox.network", 3],
    ["limits: { processes: 0 }", "sandbox.limits.processes", 3],
    ["env: ['BAD NAME']", "sandbox.env.0", 3],
    ["isolate: true", "sandbox", 2],
    ['bwrap: "/usr/bin/bwrap\\0x"', "sandbox.bwrap", 3],
  ])("stops on %s with the file, line and key", async (line, key, lineNumber) => {
    const config = await configFrom(`principal: bot\nsandbox:\n  ${line}\n`);
    expect(() => readRuntimeConfig(config)).toThrow(
      new RegExp(`docket\\.yaml:${lineNumber}: ${key.replace(/\./g, "\\.")}`),
    );
  });

  // The agent's shell must never hold docket's own credentials, even when a user lists them.
  it.each([
    ["DOCKET_TOKEN", "docket's own"],
    ["docket_store", "docket's own"],
    ["DOCKET_GATEWAY_TOKEN", "docket's own"],
    ["BOB_TOKEN", "approvers.bob.token_env"],
    ["LLM_KEY", "model.api_key_env"],
    ["OLLAMA_KEY", "model.providers.ollama.api_key_env"],
  ])("refuses sandbox.env %s at load, with the file, line and why", async (name, why) => {
    const config = await configFrom(
      [
        "model: { name: 'openai:gpt', api_key_env: LLM_KEY, providers: { ollama: { api_key_env: OLLAMA_KEY } } }",
        "approvers:",
        "  bob: { roles: [lead], token_env: BOB_TOKEN }",
        "sandbox:",
        "  env:",
        "    - CI",
        `    - ${name}`,
        "",
      ].join("\n"),
    );
    let message = "";
    try {
      readRuntimeConfig(config);
    } catch (error) {
      message = (error as Error).message;
    }
    // The env list is reported at its key line (list items carry no line of their own).
    expect(message).toMatch(/docket\.yaml:5: sandbox\.env\.1: /);
    expect(message).toContain(name);
    expect(message).toContain(why);
  });
});
