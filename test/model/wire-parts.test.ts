import { createAnthropic as createAnthropicV3 } from "@ai-sdk/anthropic-v3";
import { createOpenAICompatible as createOpenAICompatibleV3 } from "@ai-sdk/openai-compatible-v3";
import { createOpenAI as createOpenAIV3 } from "@ai-sdk/openai-v3";
import type { LanguageModelV3, LanguageModelV4 } from "@ai-sdk/provider";
import { describe, expect, it, onTestFinished } from "vitest";
import { requestTurn } from "../../src/loop/request-turn.js";
import { toPrompt } from "../../src/loop/to-prompt.js";
import { asModelV4 } from "../../src/model/as-model-v4.js";
import {
  FAKE_ANTHROPIC_KEY,
  startFakeAnthropic,
} from "../support/fake-providers/fake-anthropic.js";
import { FAKE_OPENAI_KEY, startFakeOpenAI } from "../support/fake-providers/fake-openai.js";
import type { RecordedRequest } from "../support/fake-providers/fake-script.js";
import { modelAt, TOOLS } from "./model-fixtures.js";
import { ANTHROPIC_MESSAGES, CHAT_MESSAGES, SYSTEM, TRANSCRIPT } from "./wire-parts-fixtures.js";

type Provider = "anthropic" | "openai" | "openai-compatible";

const MODEL_STRINGS: Record<Provider, string> = {
  anthropic: "anthropic:claude-sonnet-4-5",
  openai: "openai:gpt-4o",
  "openai-compatible": "openai-compatible:qwen2.5-coder",
};

/** The same model through an AI SDK 6 (LanguageModelV3) provider package, as a user may hand it in. */
function v3Model(provider: Provider, url: string): LanguageModelV3 {
  const baseURL = `${url}/v1`;
  switch (provider) {
    case "anthropic":
      return createAnthropicV3({ apiKey: FAKE_ANTHROPIC_KEY, baseURL })("claude-sonnet-4-5");
    case "openai":
      return createOpenAIV3({ apiKey: FAKE_OPENAI_KEY, baseURL }).chat("gpt-4o");
    case "openai-compatible":
      return createOpenAICompatibleV3({
        name: "local",
        baseURL,
        apiKey: FAKE_OPENAI_KEY,
        includeUsage: true,
      }).chatModel("qwen2.5-coder");
  }
}

async function start(provider: Provider) {
  const fake =
    provider === "anthropic"
      ? await startFakeAnthropic([{ text: "Summary." }, { text: "Summary." }])
      : await startFakeOpenAI([{ text: "Summary." }, { text: "Summary." }]);
  onTestFinished(() => fake.close());
  return fake;
}

function expectEveryPart(provider: Provider, request: RecordedRequest | undefined) {
  const body = request?.body as { system?: unknown; messages?: unknown };
  if (provider === "anthropic") {
    expect(body.system).toEqual([{ type: "text", text: SYSTEM }]);
    expect(body.messages).toEqual(ANTHROPIC_MESSAGES);
  } else {
    expect(body.messages).toEqual(CHAT_MESSAGES);
  }
}

const CASES = (["anthropic", "openai", "openai-compatible"] as const).flatMap((provider) =>
  (["v4", "v3"] as const).flatMap((version) =>
    (["streaming", "not streaming"] as const).map((mode) => ({ provider, version, mode })),
  ),
);

describe("every part docket puts in a prompt reaches the wire", () => {
  it.each(CASES)(
    "$provider, Language Model $version, $mode",
    async ({ provider, version, mode }) => {
      const fake = await start(provider);
      const model: LanguageModelV4 =
        version === "v4"
          ? await modelAt(MODEL_STRINGS[provider], fake.url)
          : asModelV4(v3Model(provider, fake.url));
      expect(model.specificationVersion).toBe("v4");
      const prompt = toPrompt(TRANSCRIPT);
      if (mode === "streaming") {
        const outcome = await requestTurn(
          model,
          { prompt, tools: TOOLS, signal: undefined },
          { maxRetries: 0 },
        );
        expect(outcome).toMatchObject({ status: "ok", turn: { text: "Summary." } });
      } else {
        const result = await model.doGenerate({ prompt, tools: TOOLS });
        expect(result.content).toEqual([
          expect.objectContaining({ type: "text", text: "Summary." }),
        ]);
      }
      expect(fake.requests).toHaveLength(1);
      expect((fake.requests[0]?.body as { stream?: boolean } | undefined)?.stream === true).toBe(
        mode === "streaming",
      );
      expectEveryPart(provider, fake.requests[0]);
    },
  );

  // The trap this test exists for: a V4 provider silently drops a prompt part still in V3's
  // shape. docket's prompt must be in V4's, and V3 models get it converted.
  it("a V4 provider handed a V3-shaped user file drops it without an error, so docket never sends one", async () => {
    const fake = await start("anthropic");
    const model = await modelAt(MODEL_STRINGS.anthropic, fake.url);
    const v3Shaped = [
      {
        role: "user",
        content: [
          { type: "text", text: "Look:" },
          { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" },
        ],
      },
    ] as unknown as Parameters<LanguageModelV4["doGenerate"]>[0]["prompt"];
    await model.doGenerate({ prompt: v3Shaped });
    const tagged = [
      {
        role: "user" as const,
        content: [
          { type: "text" as const, text: "Look:" },
          {
            type: "file" as const,
            mediaType: "image/png",
            data: { type: "data" as const, data: "iVBORw0KGgo=" },
          },
        ],
      },
    ];
    await model.doGenerate({ prompt: tagged });
    const sent = fake.requests.map((r) => JSON.stringify(r.body));
    expect(sent).toHaveLength(2);
    expect(sent[0]).not.toContain("iVBORw0KGgo=");
    expect(sent[1]).toContain("iVBORw0KGgo=");
  });

  it("a V3 model behind docket's adapter gets V4's tagged file data in its own shape", async () => {
    const fake = await start("anthropic");
    const model = asModelV4(v3Model("anthropic", fake.url));
    await model.doGenerate({
      prompt: [
        {
          role: "user",
          content: [
            { type: "text", text: "Look:" },
            { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } },
          ],
        },
      ],
    });
    expect((fake.requests[0]?.body as { messages?: unknown } | undefined)?.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Look:" },
          {
            type: "image",
            source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
          },
        ],
      },
    ]);
  });
});
