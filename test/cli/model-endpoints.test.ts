import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { tempDir } from "../loop/support/temp-dir.js";
import {
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../support/fake-providers/fake-anthropic.js";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import { runDocket } from "../support/run-docket.js";

/** Both fakes running, a project dir with the given docket.yaml, and `docket run` in it. */
async function setup(yaml: (urls: { anthropic: string; openai: string }) => string) {
  const anthropic = await startFakeAnthropic([{ text: "from anthropic" }]);
  const openai = await startFakeOpenAI([{ text: "from the compatible server" }], { apiKey: null });
  onTestFinished(() => anthropic.close());
  onTestFinished(() => openai.close());
  const dir = await tempDir("docket-model-");
  mkdirSync(join(dir, "home"));
  writeFileSync(join(dir, "docket.yaml"), yaml({ anthropic: anthropic.url, openai: openai.url }));
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runDocket(["run", "hello", "--json", ...args], {
      cwd: dir,
      env: {
        HOME: join(dir, "home"),
        XDG_CONFIG_HOME: join(dir, "home", ".config"),
        DOCKET_STORE: "",
        DOCKET_CONFIG: "",
        ANTHROPIC_API_KEY: "",
        ANTHROPIC_BASE_URL: "",
        OPENAI_API_KEY: "",
        OPENAI_BASE_URL: "",
        OLLAMA_HOST: "",
        ...env,
      },
    });
  return { anthropic, openai, run };
}

const headerValues = (requests: readonly { headers: object }[]) =>
  JSON.stringify(requests.map((request) => request.headers));

describe("model.base_url applies to the provider it was written for", () => {
  it("--model anthropic:… goes to ANTHROPIC_BASE_URL, not docket.yaml's compatible server", async () => {
    const fakes = await setup(
      ({ openai }) => `model:\n  name: openai-compatible:local\n  base_url: ${openai}/v1\n`,
    );
    const result = await fakes.run(["--model", "anthropic:claude-sonnet-4-5"], {
      ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
      ANTHROPIC_BASE_URL: fakes.anthropic.url,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fakes.anthropic.requests).toHaveLength(1);
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it("the configured compatible server gets its requests, and never the Anthropic or OpenAI key", async () => {
    const fakes = await setup(
      ({ openai }) => `model:\n  name: openai-compatible:local\n  base_url: ${openai}/v1\n`,
    );
    const result = await fakes.run([], {
      ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
      OPENAI_API_KEY: FAKE_OPENAI_KEY,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fakes.openai.requests).toHaveLength(1);
    expect(headerValues(fakes.openai.requests)).not.toContain(FAKE_ANTHROPIC_KEY);
    expect(headerValues(fakes.openai.requests)).not.toContain(FAKE_OPENAI_KEY);
    expect(fakes.anthropic.requests).toHaveLength(0);
  });

  it("model.providers names each provider's address; the key comes from its api_key_env", async () => {
    const fakes = await setup(
      ({ openai }) =>
        `model:\n  name: anthropic:claude-sonnet-4-5\n  providers:\n    ollama: { base_url: "${openai}/v1", api_key_env: LOCAL_KEY }\n`,
    );
    const result = await fakes.run(["--model", "ollama:llama3.1"], {
      LOCAL_KEY: "local-secret-1",
      ANTHROPIC_API_KEY: FAKE_ANTHROPIC_KEY,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fakes.openai.requests).toHaveLength(1);
    expect(fakes.openai.requests[0]?.headers.authorization).toBe("Bearer local-secret-1");
    expect(fakes.openai.requests[0]?.body).toMatchObject({ model: "llama3.1" });
  });

  it("ollama: honours OLLAMA_HOST, with no key sent", async () => {
    const fakes = await setup(() => "principal: agent\n");
    const result = await fakes.run(["--model", "ollama:llama3.1"], {
      OLLAMA_HOST: fakes.openai.url,
      OPENAI_API_KEY: FAKE_OPENAI_KEY,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fakes.openai.requests).toHaveLength(1);
    expect(fakes.openai.requests[0]?.headers).not.toHaveProperty("authorization");
  });

  it("openai-compatible: with OPENAI_BASE_URL takes OPENAI_API_KEY, as the OpenAI SDK pairs them", async () => {
    const fakes = await setup(() => "principal: agent\n");
    const result = await fakes.run(["--model", "openai-compatible:local"], {
      OPENAI_BASE_URL: `${fakes.openai.url}/v1`,
      OPENAI_API_KEY: FAKE_OPENAI_KEY,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(fakes.openai.requests[0]?.headers.authorization).toBe(`Bearer ${FAKE_OPENAI_KEY}`);
  });

  it("a mistyped --model stops at start naming the flag, and creates no store", async () => {
    const fakes = await setup(() => "principal: agent\n");
    const result = await fakes.run(["--model", "antropic:claude"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--model: Unknown model provider "antropic"/);
  });
});
