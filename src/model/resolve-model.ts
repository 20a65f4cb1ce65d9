import type { LanguageModelV4 } from "@ai-sdk/provider";
import { DocketError } from "../errors/docket-error.js";
import { importOptional } from "../shared/import-package.js";

/** Where a model string points, and how to reach it. */
export interface ModelSettings {
  /** Base URL override (docket.yaml `model.base_url`). */
  readonly baseUrl?: string;
  /** API key override; otherwise the provider's usual environment variable. */
  readonly apiKey?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** Local OpenAI-compatible servers and where they listen by default. */
const LOCAL_SERVERS: Record<string, string> = {
  ollama: "http://127.0.0.1:11434/v1",
  lmstudio: "http://127.0.0.1:1234/v1",
  vllm: "http://127.0.0.1:8000/v1",
  llamacpp: "http://127.0.0.1:8080/v1",
};

/** The model strings docket understands, for help texts and errors. */
export const MODEL_STRING_FORMS = [
  "anthropic:MODEL",
  "openai:MODEL",
  "openai-compatible:MODEL (with model.base_url or OPENAI_BASE_URL)",
  ...Object.keys(LOCAL_SERVERS).map((name) => `${name}:MODEL`),
  "scripted:FILE",
];

const KNOWN_PROVIDERS = new Set([
  "anthropic",
  "openai",
  "openai-compatible",
  "scripted",
  ...Object.keys(LOCAL_SERVERS),
]);

function split(model: string): { provider: string; id: string } {
  const colon = model.indexOf(":");
  if (colon <= 0 || colon === model.length - 1) {
    throw new DocketError(
      "model_invalid",
      `"${model}" is not a model string. Use one of: ${MODEL_STRING_FORMS.join(", ")}.`,
    );
  }
  return { provider: model.slice(0, colon), id: model.slice(colon + 1) };
}

/**
 * The provider part of a model string: `anthropic` for `anthropic:claude-sonnet-4-5`.
 *
 * @example
 * ```ts
 * providerOf("ollama:llama3.1"); // "ollama"
 * ```
 */
export function providerOf(model: string): string {
  return split(model).provider;
}

/**
 * Check a model string's form and provider without loading anything, so a typo stops docket at
 * start. `source` names where the string was written (`--model`, `docket.yaml:3`).
 *
 * @example
 * ```ts
 * checkModelString("anthropc:claude", "--model"); // throws model_invalid: "--model: Unknown model provider …"
 * ```
 */
export function checkModelString(model: string, source: string): void {
  try {
    const { provider } = split(model);
    if (!KNOWN_PROVIDERS.has(provider)) {
      throw new DocketError(
        "model_invalid",
        `Unknown model provider "${provider}". Use one of: ${MODEL_STRING_FORMS.join(", ")}.`,
      );
    }
  } catch (error) {
    throw new DocketError("model_invalid", `${source}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Anthropic's own tools take ANTHROPIC_BASE_URL without `/v1`; the provider package appends only
 * `/messages`. Accept both.
 */
function anthropicBaseUrl(value: string | undefined): string {
  if (!value) return "https://api.anthropic.com/v1";
  const url = new URL(value);
  return url.pathname === "/" || url.pathname === "" ? `${value.replace(/\/$/, "")}/v1` : value;
}

/** `OLLAMA_HOST` as Ollama reads it: `host:port` or a URL; its OpenAI API is under `/v1`. */
function ollamaHost(value: string): string {
  const url = /^[a-z]+:\/\//i.test(value) ? value : `http://${value}`;
  return `${url.replace(/\/+$/, "")}/v1`;
}

function requireKey(value: string | undefined, variable: string, provider: string): string {
  if (!value) {
    throw new DocketError(
      "model_key_missing",
      `No API key for ${provider}: set ${variable} in the environment (or model.api_key_env in docket.yaml).`,
    );
  }
  return value;
}

/**
 * Turn a model string into an AI SDK language model. Provider packages are optional peers,
 * imported only when their model is asked for; one that is not installed is a `package_missing`
 * error naming it.
 *
 * @example
 * ```ts
 * const model = await resolveModel("anthropic:claude-sonnet-4-5");
 * const local = await resolveModel("ollama:llama3.1");
 * ```
 */
export async function resolveModel(
  model: string,
  settings: ModelSettings = {},
): Promise<LanguageModelV4> {
  const env = settings.env ?? process.env;
  const { provider, id } = split(model);
  switch (provider) {
    case "anthropic": {
      const { createAnthropic } = await importOptional<typeof import("@ai-sdk/anthropic")>(
        "@ai-sdk/anthropic",
        { neededFor: "An anthropic: model" },
      );
      const apiKey = requireKey(
        settings.apiKey ?? env.ANTHROPIC_API_KEY,
        "ANTHROPIC_API_KEY",
        "Anthropic",
      );
      return createAnthropic({
        apiKey,
        baseURL: anthropicBaseUrl(settings.baseUrl ?? env.ANTHROPIC_BASE_URL),
      })(id);
    }
    case "openai": {
      const { createOpenAI } = await importOptional<typeof import("@ai-sdk/openai")>(
        "@ai-sdk/openai",
        { neededFor: "An openai: model" },
      );
      const apiKey = requireKey(settings.apiKey ?? env.OPENAI_API_KEY, "OPENAI_API_KEY", "OpenAI");
      const baseURL = settings.baseUrl ?? env.OPENAI_BASE_URL ?? "https://api.openai.com/v1";
      const { plainErrorResults } = await import("./plain-error-results.js");
      // Chat Completions: the protocol every OpenAI-compatible server also speaks.
      return plainErrorResults(createOpenAI({ apiKey, baseURL }).chat(id));
    }
    case "scripted": {
      const { loadModelScript } = await import("./model-script.js");
      const { createScriptedModel } = await import("./scripted-model.js");
      return createScriptedModel(await loadModelScript(id));
    }
    default: {
      if (!(provider === "openai-compatible" || Object.hasOwn(LOCAL_SERVERS, provider))) {
        throw new DocketError(
          "model_invalid",
          `Unknown model provider "${provider}". Use one of: ${MODEL_STRING_FORMS.join(", ")}.`,
        );
      }
      // OPENAI_BASE_URL and OPENAI_API_KEY go together, as the OpenAI SDK pairs them: the key
      // never goes to a server named only in docket.yaml, nor to a local server by default.
      const fromEnv = provider === "openai-compatible" && !settings.baseUrl;
      const baseURL =
        settings.baseUrl ??
        (provider === "openai-compatible"
          ? env.OPENAI_BASE_URL
          : provider === "ollama" && env.OLLAMA_HOST
            ? ollamaHost(env.OLLAMA_HOST)
            : LOCAL_SERVERS[provider]);
      if (!baseURL) {
        throw new DocketError(
          "model_invalid",
          "openai-compatible models need a base URL: set model.base_url in docket.yaml or OPENAI_BASE_URL.",
        );
      }
      const apiKey = settings.apiKey ?? (fromEnv ? env.OPENAI_API_KEY : undefined);
      const { createOpenAICompatible } = await importOptional<
        typeof import("@ai-sdk/openai-compatible")
      >("@ai-sdk/openai-compatible", { neededFor: `A ${provider}: model` });
      // includeUsage: local servers report tokens only when asked, and token limits need them.
      return createOpenAICompatible({
        name: provider,
        baseURL,
        includeUsage: true,
        ...(apiKey ? { apiKey } : {}),
      }).chatModel(id);
    }
  }
}
