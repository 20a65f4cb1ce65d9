import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3Message,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Message,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
  SharedV4FileData,
} from "@ai-sdk/provider";
import { DocketError } from "../errors/docket-error.js";

/** A language model docket can drive: the AI SDK 7 interface, or the AI SDK 6 one it adapts. */
export type AnyLanguageModel = LanguageModelV4 | LanguageModelV3;

type V3FilePart = Extract<LanguageModelV3Message["content"][number], { type: "file" }>;
type V3AssistantPart = Extract<LanguageModelV3Message, { role: "assistant" }>["content"][number];
type V3ContentOutput = Extract<LanguageModelV3ToolResultOutput, { type: "content" }>;

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/** V4 tags file data; V3 takes the bytes, base64 text or URL itself. */
function fileDataV3(data: SharedV4FileData): V3FilePart["data"] {
  switch (data.type) {
    case "data":
      return data.data;
    case "url":
      return data.url;
    default:
      // A provider reference or inline text has no V3 form: refuse rather than send nothing.
      throw new DocketError(
        "model_invalid",
        `A file given as "${data.type}" cannot be sent to an AI SDK 6 (LanguageModelV3) model.`,
      );
  }
}

function outputV3(output: LanguageModelV4ToolResultOutput): LanguageModelV3ToolResultOutput {
  if (output.type !== "content") return output;
  const value: V3ContentOutput["value"] = output.value.map((part) => {
    if (part.type !== "file") return part;
    const data = part.data;
    switch (data.type) {
      case "data":
        return {
          type: "file-data" as const,
          data: typeof data.data === "string" ? data.data : base64(data.data),
          mediaType: part.mediaType,
          ...(part.filename !== undefined ? { filename: part.filename } : {}),
        };
      case "url":
        return { type: "file-url" as const, url: data.url.toString() };
      case "reference":
        return { type: "file-id" as const, fileId: data.reference };
      default:
        return { type: "text" as const, text: data.text };
    }
  });
  return { type: "content", value };
}

function messageV3(message: LanguageModelV4Message): LanguageModelV3Message {
  switch (message.role) {
    case "system":
      return message;
    case "user":
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === "file" ? { ...part, data: fileDataV3(part.data) } : part,
        ),
      };
    case "assistant":
      return {
        ...message,
        content: message.content.flatMap((part): V3AssistantPart[] => {
          switch (part.type) {
            case "file":
              return [{ ...part, data: fileDataV3(part.data) }];
            case "tool-result":
              return [{ ...part, output: outputV3(part.output) }];
            // V3 has no custom or reasoning-file prompt parts; they are provider-specific replay.
            case "custom":
            case "reasoning-file":
              return [];
            default:
              return [part];
          }
        }),
      };
    case "tool":
      return {
        ...message,
        content: message.content.map((part) =>
          part.type === "tool-result" ? { ...part, output: outputV3(part.output) } : part,
        ),
      } as LanguageModelV3Message;
  }
}

// docket sends the same message objects every turn (the transcript only grows): each is
// converted once, so a long run through a V3 model stays linear.
const convertedV3 = new WeakMap<LanguageModelV4Message, LanguageModelV3Message>();

function cachedMessageV3(message: LanguageModelV4Message): LanguageModelV3Message {
  let v3 = convertedV3.get(message);
  if (!v3) {
    v3 = messageV3(message);
    convertedV3.set(message, v3);
  }
  return v3;
}

function optionsV3(options: LanguageModelV4CallOptions): LanguageModelV3CallOptions {
  // `reasoning` is V4's: a V3 model has no such option (set it in providerOptions instead).
  const { reasoning: _reasoning, prompt, ...rest } = options;
  return { ...rest, prompt: prompt.map(cachedMessageV3) } as LanguageModelV3CallOptions;
}

function contentV4(part: LanguageModelV3Content): LanguageModelV4Content {
  return part.type === "file"
    ? { ...part, data: { type: "data", data: part.data } }
    : (part as LanguageModelV4Content);
}

function streamPartV4(part: LanguageModelV3StreamPart): LanguageModelV4StreamPart {
  return part.type === "file"
    ? { ...part, data: { type: "data", data: part.data } }
    : (part as LanguageModelV4StreamPart);
}

/**
 * docket's model interface is LanguageModelV4 (AI SDK 7). A V3 model (AI SDK 6 providers) is
 * wrapped: prompts go out in V3's shapes (untagged file data, `file-data`/`file-url` tool-result
 * parts), files come back tagged. A V4 model is returned as it is.
 *
 * @example
 * ```ts
 * import { createAnthropic } from "@ai-sdk/anthropic"; // 3.x: a LanguageModelV3
 * const model = asModelV4(createAnthropic()("claude-sonnet-4-5"));
 * model.specificationVersion; // "v4"
 * ```
 */
export function asModelV4(model: AnyLanguageModel): LanguageModelV4 {
  if (model.specificationVersion === "v4") return model;
  if ((model as { specificationVersion?: unknown }).specificationVersion !== "v3") {
    throw new DocketError(
      "model_invalid",
      `docket drives LanguageModelV4 and V3 models; this one says "${String((model as { specificationVersion?: unknown }).specificationVersion)}".`,
    );
  }
  const v3 = model;
  return {
    specificationVersion: "v4",
    provider: v3.provider,
    modelId: v3.modelId,
    get supportedUrls() {
      return v3.supportedUrls;
    },
    async doGenerate(options) {
      const result = await v3.doGenerate(optionsV3(options));
      return { ...result, content: result.content.map(contentV4) };
    },
    async doStream(options) {
      const result = await v3.doStream(optionsV3(options));
      // A pull source, not pipeThrough: one read and one enqueue per part, which costs a
      // fraction of a TransformStream's pipe in Node (bench/loop prints V3 beside V4).
      const reader = result.stream.getReader();
      return {
        ...result,
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          async pull(controller) {
            const next = await reader.read();
            if (next.done) controller.close();
            else controller.enqueue(streamPartV4(next.value));
          },
          cancel: (reason) => reader.cancel(reason),
        }),
      };
    },
  };
}
