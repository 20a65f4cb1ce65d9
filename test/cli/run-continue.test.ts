import { linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { DOCKET_SYSTEM_PROMPT } from "../../src/cli/system-prompt.js";
import { turn, writeScriptFile } from "../loop/support/model-script.js";
import { startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import { runDocket } from "../support/run-docket.js";
import { cliProject, userMessages } from "./support/cli-project.js";

const project = cliProject;
const transcripts = userMessages;

describe("docket run --continue and --session", { timeout: 120_000 }, () => {
  it("--continue adds the prompt to the most recently active session; none is a clear error", async () => {
    const { dir, env } = await project();
    const script = await writeScriptFile(dir, [turn("One."), turn("Two."), turn("Three.")]);
    const model = ["--model", `scripted:${script}`];
    const none = await runDocket(["run", "hello", "--continue", ...model], { cwd: dir, env });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      /^docket: there is no session to continue in .*docket\.db; start one: docket run "…"\n$/,
    );

    const first = await runDocket(["run", "first", "--json", ...model], { cwd: dir, env });
    const second = await runDocket(["run", "second", "--json", ...model], { cwd: dir, env });
    expect(second.code, second.stderr).toBe(0);
    const idOf = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}").sessionId;
    const [a, b] = [idOf(first.stdout), idOf(second.stdout)];
    // The first session is the more recently active once it gets a new turn.
    const onA = await runDocket(["run", "again", "--session", a, ...model], { cwd: dir, env });
    expect(onA.code, onA.stderr).toBe(0);
    const continued = await runDocket(["run", "and again", "--continue", ...model], {
      cwd: dir,
      env,
    });
    expect(continued.code, continued.stderr).toBe(0);
    expect(continued.stderr).toContain(`docket: continuing session ${a} (first)`);
    const saved = await transcripts(dir);
    expect(saved.get(a)).toEqual(["first", "again", "and again"]);
    expect(saved.get(b)).toEqual(["second"]);
  });
});

describe("the system prompt reaches the model", { timeout: 120_000 }, () => {
  async function requestBody(yaml: string, files: Record<string, string>) {
    const fake = await startFakeOpenAI([{ text: "ok" }], { apiKey: null });
    onTestFinished(() => fake.close());
    const { dir, env } = await project(
      `${yaml}model:\n  name: openai-compatible:local\n  base_url: ${fake.url}/v1\n`,
    );
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    const result = await runDocket(["run", "hello"], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    return { body, dir, stderr: result.stderr };
  }

  it("docket's own prompt and the workspace's AGENTS.md are in the request body", async () => {
    const { body } = await requestBody("", {
      "AGENTS.md": "Always run npm test before you say a change is done.\n",
      "CLAUDE.md": "Never read.",
    });
    const system = body.messages.filter((m) => m.role === "system");
    expect(system).toHaveLength(1);
    const text = String(system[0]?.content);
    expect(text.startsWith(DOCKET_SYSTEM_PROMPT)).toBe(true);
    expect(text).toContain("# Project instructions (AGENTS.md, at the workspace root)");
    expect(text).toContain("Always run npm test before you say a change is done.");
    expect(text).not.toContain("Never read.");
    expect(body.messages.at(-1)).toMatchObject({ role: "user", content: "hello" });
  });

  it("CLAUDE.md is used when there is no AGENTS.md; system_prompt replaces docket's own", async () => {
    const { body } = await requestBody("system_prompt: |\n  You are Ada, a careful reviewer.\n", {
      "CLAUDE.md": "Use tabs.\n",
    });
    const text = String(body.messages.find((m) => m.role === "system")?.content);
    expect(
      text.startsWith("You are Ada, a careful reviewer.\n\n# Project instructions (CLAUDE.md"),
    ).toBe(true);
    expect(text).toContain("Use tabs.");
    expect(text).not.toContain(DOCKET_SYSTEM_PROMPT);
  });

  it("an AGENTS.md that is a link to docket's store is not sent, and the operator is told", async () => {
    const fake = await startFakeOpenAI([{ text: "ok" }], { apiKey: null });
    onTestFinished(() => fake.close());
    const { dir, env } = await project(
      `model:\n  name: openai-compatible:local\n  base_url: ${fake.url}/v1\n`,
    );
    mkdirSync(join(dir, ".docket"));
    writeFileSync(join(dir, ".docket", "notes"), "STATE THE AGENT MUST NOT SEE");
    linkSync(join(dir, ".docket", "notes"), join(dir, "AGENTS.md"));
    const result = await runDocket(["run", "hello"], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      "docket: AGENTS.md was not loaded: it is protected (docket's state folder)",
    );
    expect(JSON.stringify(fake.requests[0]?.body)).not.toContain("MUST NOT SEE");
  });

  it("docs/cli.md's system_prompt example is what the model gets", async () => {
    const page = readFileSync(new URL("../../docs/cli.md", import.meta.url), "utf8");
    const yaml = /```yaml\n {3}(system_prompt:[\s\S]*?)```/.exec(page)?.[1] ?? "";
    expect(yaml).toContain("system_prompt: |");
    const indented = yaml.replace(/^ {3}/gm, "");
    const { body } = await requestBody(indented, {});
    expect(String(body.messages.find((m) => m.role === "system")?.content)).toBe(
      "You review pull requests for the payments team. Be brief.\n",
    );
  });
});
