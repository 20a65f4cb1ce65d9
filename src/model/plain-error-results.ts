import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Message,
} from "@ai-sdk/provider";

function plainMessage(message: LanguageModelV4Message): LanguageModelV4Message {
  if (message.role !== "tool") return message;
  return {
    ...message,
    content: message.content.map((part) =>
      part.type === "tool-result" && part.output.type === "error-text"
        ? { ...part, output: { type: "text", value: part.output.value } }
        : part,
    ),
  };
}

function plainOptions(options: LanguageModelV4CallOptions): LanguageModelV4CallOptions {
  return { ...options, prompt: options.prompt.map(plainMessage) };
}

/**
 * Send error results as plain text. Chat Completions has no error flag on a tool message, and
 * @ai-sdk/openai 4.x serialises an error result as `{"error":"…"}`, which escapes every quote
 * and newline of a failed command's output. docket's words already say the call was refused or
 * failed, so the model reads them as they are (as openai-compatible servers get them).
 *
 * @example
 * ```ts
 * declare const openai: { chat(id: string): import("@ai-sdk/provider").LanguageModelV4 }; // createOpenAI({ apiKey })
 * const model = plainErrorResults(openai.chat("gpt-4o"));
 * ```
 */
export function plainErrorResults(model: LanguageModelV4): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: model.provider,
    modelId: model.modelId,
    get supportedUrls() {
      return model.supportedUrls;
    },
    doGenerate: (options) => model.doGenerate(plainOptions(options)),
    doStream: (options) => model.doStream(plainOptions(options)),
  };
}
