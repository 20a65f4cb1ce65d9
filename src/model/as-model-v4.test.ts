import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { asModelV4 } from "./as-model-v4.js";

function recordingV3(parts: LanguageModelV3StreamPart[]) {
  const seen: LanguageModelV3CallOptions[] = [];
  const model: LanguageModelV3 = {
    specificationVersion: "v3",
    provider: "test",
    modelId: "m",
    supportedUrls: {},
    async doGenerate(options) {
      seen.push(options);
      return {
        content: [{ type: "file", mediaType: "image/png", data: "AAAA" }],
        finishReason: { unified: "stop", raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
        warnings: [],
      };
    },
    async doStream(options) {
      seen.push(options);
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return { model, seen };
}

describe("asModelV4", () => {
  it("returns a V4 model as it is", () => {
    const v4 = asModelV4(recordingV3([]).model);
    expect(asModelV4(v4)).toBe(v4);
  });

  it("refuses a model of another interface version, naming it", () => {
    const v2 = { specificationVersion: "v2" } as unknown as LanguageModelV3;
    expect(() => asModelV4(v2)).toThrow(/says "v2"/);
  });

  it("sends V3 its shapes: untagged file data, file-data tool output, no reasoning option", async () => {
    const { model, seen } = recordingV3([]);
    await asModelV4(model).doGenerate({
      reasoning: "high",
      prompt: [
        {
          role: "user",
          content: [
            {
              type: "file",
              mediaType: "image/png",
              data: { type: "url", url: new URL("https://x/y.png") },
            },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "shot",
              output: {
                type: "content",
                value: [
                  { type: "text", text: "here" },
                  {
                    type: "file",
                    mediaType: "image/png",
                    data: { type: "data", data: new Uint8Array([1, 2, 3]) },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    const options = seen[0];
    expect(options && "reasoning" in options).toBe(false);
    expect(options?.prompt[0]).toMatchObject({
      content: [{ type: "file", data: new URL("https://x/y.png") }],
    });
    expect(options?.prompt[1]).toMatchObject({
      content: [
        {
          output: {
            type: "content",
            value: [
              { type: "text", text: "here" },
              { type: "file-data", data: "AQID", mediaType: "image/png" },
            ],
          },
        },
      ],
    });
  });

  it("refuses a file V3 cannot carry instead of sending nothing", async () => {
    const { model } = recordingV3([]);
    await expect(
      asModelV4(model).doGenerate({
        prompt: [
          {
            role: "user",
            content: [
              {
                type: "file",
                mediaType: "text/plain",
                data: { type: "reference", reference: { openai: "file_1" } },
              },
            ],
          },
        ],
      }),
    ).rejects.toThrow(/cannot be sent to an AI SDK 6/);
  });

  it("tags the files a V3 model returns, generated and streamed", async () => {
    const { model } = recordingV3([
      { type: "file", mediaType: "image/png", data: "BBBB" },
      {
        type: "finish",
        finishReason: { unified: "stop", raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
          outputTokens: { total: 1, text: 1, reasoning: undefined },
        },
      },
    ]);
    const v4 = asModelV4(model);
    expect((await v4.doGenerate({ prompt: [] })).content).toEqual([
      { type: "file", mediaType: "image/png", data: { type: "data", data: "AAAA" } },
    ]);
    const parts = [];
    const reader = (await v4.doStream({ prompt: [] })).stream.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read())
      parts.push(next.value);
    expect(parts[0]).toEqual({
      type: "file",
      mediaType: "image/png",
      data: { type: "data", data: "BBBB" },
    });
  });

  it("passes a V3 stream's failure and the reader's cancel through", async () => {
    let cancelled: unknown;
    const failing: LanguageModelV3 = {
      ...recordingV3([]).model,
      async doStream() {
        let sent = false;
        return {
          stream: new ReadableStream<LanguageModelV3StreamPart>({
            pull(controller) {
              if (sent) throw new Error("connection reset");
              sent = true;
              controller.enqueue({ type: "text-delta", id: "t", delta: "a" });
            },
            cancel(reason) {
              cancelled = reason;
            },
          }),
        };
      },
    };
    const reader = (await asModelV4(failing).doStream({ prompt: [] })).stream.getReader();
    expect((await reader.read()).value).toEqual({ type: "text-delta", id: "t", delta: "a" });
    await expect(reader.read()).rejects.toThrow("connection reset");

    const second = (await asModelV4(failing).doStream({ prompt: [] })).stream.getReader();
    await second.cancel("stop");
    expect(cancelled).toBe("stop");
  });
});
