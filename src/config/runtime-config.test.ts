import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "./load-config.js";
import { parseDuration } from "./parse-duration.js";
import { readRuntimeConfig } from "./runtime-config.js";

async function configFrom(text: string) {
  const dir = await mkdtemp(join(tmpdir(), "docket-config-"));
  await writeFile(join(dir, "docket.yaml"), text);
  return loadConfig("docket.yaml", { cwd: dir });
}

describe("readRuntimeConfig", () => {
  it("fills in defaults without a file", () => {
    expect(readRuntimeConfig(undefined)).toMatchObject({
      principal: "agent",
      approvals: { mode: undefined, expiresMs: 900_000, defaultApprovers: [] },
      approvers: {},
    });
  });

  it("reads every runtime section", async () => {
    const runtime = readRuntimeConfig(
      await configFrom(`principal: support-bot
store: sqlite:data/docket.db
model: { name: "openai-compatible:llama3", base_url: "http://127.0.0.1:11434/v1" }
limits: { max_turns: 10, max_run: 5m }
approvers:
  alice: { roles: [lead] }
approvals: { mode: suspend, expires: 30m, default_approvers: ["role:lead"] }
`),
    );
    expect(runtime).toMatchObject({
      principal: "support-bot",
      store: "sqlite:data/docket.db",
      model: { name: "openai-compatible:llama3", baseUrl: "http://127.0.0.1:11434/v1" },
      limits: { maxTurns: 10, maxRunMs: 300_000 },
      approvers: { alice: { roles: ["lead"] } },
      approvals: { mode: "suspend", expiresMs: 1_800_000, defaultApprovers: ["role:lead"] },
    });
  });

  it("reads gateway.max_sessions, and refuses one that is not a positive integer", async () => {
    const runtime = readRuntimeConfig(await configFrom("gateway:\n  max_sessions: 200\n"));
    expect(runtime.gateway).toEqual({ maxSessions: 200 });
    expect(readRuntimeConfig(undefined).gateway).toEqual({});
    await expect(
      configFrom("gateway:\n  max_sessions: 0\n").then(readRuntimeConfig),
    ).rejects.toThrowError(/^docket\.yaml:2: gateway\.max_sessions: /);
  });

  it("reads model.reasoning, and refuses a level V4 does not have", async () => {
    const runtime = readRuntimeConfig(
      await configFrom("model:\n  name: anthropic:claude-sonnet-4-5\n  reasoning: high\n"),
    );
    expect(runtime.model).toMatchObject({ name: "anthropic:claude-sonnet-4-5", reasoning: "high" });
    await expect(
      configFrom("model:\n  name: anthropic:claude-sonnet-4-5\n  reasoning: lots\n").then(
        readRuntimeConfig,
      ),
    ).rejects.toThrowError(/^docket\.yaml:3: model\.reasoning: /);
  });

  it("names the file, line and problem", async () => {
    await expect(
      configFrom("principal: agent\napprovals:\n  mode: later\n").then(readRuntimeConfig),
    ).rejects.toThrowError(/^docket\.yaml:3: approvals\.mode: /);
    await expect(
      configFrom("limits:\n  max_run: soon\n").then(readRuntimeConfig),
    ).rejects.toThrowError(/docket\.yaml:2: limits\.max_run: "soon" is not a duration/);
    await expect(
      configFrom("limits:\n  max_turn: 3\n").then(readRuntimeConfig),
    ).rejects.toThrowError(/docket\.yaml:\d+: limits/);
  });
});

describe("parseDuration", () => {
  it.each([
    ["15m", 900_000],
    ["30s", 30_000],
    ["500ms", 500],
    [250, 250],
    ["2h", 7_200_000],
  ])("%j is %d ms", (value, ms) => {
    expect(parseDuration(value)).toBe(ms);
  });
  it("refuses the rest", () => {
    expect(parseDuration("soon")).toBeUndefined();
    expect(parseDuration(-1)).toBeUndefined();
  });
});

describe("system_prompt", () => {
  it("reads the text, several lines included", async () => {
    const config = await configFrom("system_prompt: |\n  You answer in French.\n  Be brief.\n");
    expect(readRuntimeConfig(config).systemPrompt).toBe("You answer in French.\nBe brief.\n");
  });

  it("is undefined when absent (docket's own prompt is used)", async () => {
    expect(readRuntimeConfig(await configFrom("principal: bot\n")).systemPrompt).toBeUndefined();
  });

  it.each([
    ["a list", "principal: bot\nsystem_prompt:\n  - be brief\n", 2],
    ["a number", "system_prompt: 42\n", 1],
    ["a mapping", "principal: bot\nsystem_prompt: { text: hi }\n", 2],
  ])("a wrong type (%s) stops docket with the file and line", async (_, text, line) => {
    const config = await configFrom(text);
    expect(() => readRuntimeConfig(config)).toThrow(
      `docket.yaml:${line}: system_prompt: expected text (a string; use | for several lines)`,
    );
  });
});
