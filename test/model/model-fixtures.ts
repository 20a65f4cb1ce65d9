import type {
  LanguageModelV4,
  LanguageModelV4FunctionTool,
  LanguageModelV4Prompt,
} from "@ai-sdk/provider";
import { resolveModel } from "../../src/model/resolve-model.js";
import { FAKE_ANTHROPIC_KEY } from "../support/fake-providers/fake-anthropic.js";
import { FAKE_OPENAI_KEY } from "../support/fake-providers/fake-openai.js";

/** Two tools a model can call, in the AI SDK's provider-neutral form. */
export const TOOLS: LanguageModelV4FunctionTool[] = [
  {
    type: "function",
    name: "get_weather",
    description: "Current weather for a city.",
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
  {
    type: "function",
    name: "read_file",
    description: "Read a file in the workspace.",
    inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
  },
];

/**
 * Argument text no JSON parser accepts, with the things a re-serialisation would change: odd
 * spacing, an escape, non-ASCII letters and an astral-plane emoji, then a trailing comma.
 */
export const MALFORMED_ARGUMENTS = '{ "path" :  "notes/naïve \\"draft\\" 📁.md", "lines": [1, 2,';

/**
 * A prompt of one user message.
 *
 * @example
 * ```ts
 * await streamTurn(model, { prompt: userPrompt("hi"), tools: TOOLS, signal: undefined });
 * ```
 */
export function userPrompt(text: string): LanguageModelV4Prompt {
  return [{ role: "user", content: [{ type: "text", text }] }];
}

/**
 * A `sleep` for `requestTurn` that returns at once and remembers each delay it was asked for,
 * so retry tests are fast and can assert on retry-after handling.
 *
 * @example
 * ```ts
 * const { sleep, delays } = recordSleeps();
 * await requestTurn(model, options, { sleep });
 * expect(delays).toEqual([2000]);
 * ```
 */
export function recordSleeps(): { delays: number[]; sleep: (ms: number) => Promise<void> } {
  const delays: number[] = [];
  return { delays, sleep: async (ms) => void delays.push(ms) };
}

/** The Chat Completions model strings docket supports, each pointed at a fake. */
export const CHAT_COMPLETIONS_PROVIDERS = [
  { provider: "openai", model: "openai:gpt-4o" },
  { provider: "openai-compatible", model: "openai-compatible:qwen2.5-coder" },
] as const;

/**
 * Resolve a model string against a fake server the way docket does, with an empty environment
 * so nothing on the machine running the tests leaks in.
 *
 * @example
 * ```ts
 * const model = await modelAt("anthropic:claude-sonnet-4-5", fake.url);
 * ```
 */
export function modelAt(model: string, fakeUrl: string, apiKey?: string): Promise<LanguageModelV4> {
  const key = apiKey ?? (model.startsWith("anthropic:") ? FAKE_ANTHROPIC_KEY : FAKE_OPENAI_KEY);
  // Both packages append only the operation (`/messages`, `/chat/completions`) to the base URL.
  return resolveModel(model, { baseUrl: `${fakeUrl}/v1`, apiKey: key, env: {} });
}
