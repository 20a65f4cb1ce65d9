import type { Tool as AiSdkTool, FlexibleSchema } from "@ai-sdk/provider-utils";
import type { StandardSchemaV1 } from "@standard-schema/spec";
import { DocketError } from "../errors/docket-error.js";
import { defineTool, type ToolDefinition } from "../tool/define-tool.js";
import { isStandardSchema, type JsonSchema } from "../tool/input-schema.js";
import type { Tool } from "../tool/tool.js";

/** What docket must know of an AI SDK tool that the AI SDK does not say. */
export interface FromAiSdkToolOptions {
  /** The tool's name: the key it had in the AI SDK's `tools` record. */
  readonly name: string;
  /** Whether it changes anything. Required, as for `defineTool`: writes are asked by default. */
  readonly writes: ToolDefinition<JsonSchema, unknown>["writes"];
  /** Its deadline in ms (default: the checkpoint's). */
  readonly timeoutMs?: number | undefined;
  /** Its results carry outside text (web pages, other people's APIs). Default false. */
  readonly openWorld?: boolean | undefined;
  /**
   * A typed ceiling in place of the AI SDK tool's own `needsApproval` function, which may be
   * asynchronous and is given the AI SDK's messages: docket asks it of the arguments alone. A
   * tool whose `needsApproval` is a function cannot be brought over without one.
   */
  readonly needsApproval?: ((args: Record<string, unknown>) => boolean) | undefined;
}

/**
 * The input as docket's `defineTool` takes it: a Standard Schema as it is (zod 4 describes
 * itself), or the JSON Schema of an AI SDK `jsonSchema(…)`, validated by docket's ajv.
 */
function docketInput(
  name: string,
  schema: FlexibleSchema | undefined,
): StandardSchemaV1 | JsonSchema {
  if (isStandardSchema(schema)) return schema;
  if (schema === undefined) refuse(name, "it has no inputSchema");
  // An AI SDK schema (`jsonSchema(…)`), or a lazy one: a function that returns it. Read by its
  // shape, so the package does not load the AI SDK's runtime to bring a tool over.
  const resolved: unknown = typeof schema === "function" ? (schema as () => unknown)() : schema;
  const json = (resolved as { jsonSchema?: unknown } | null)?.jsonSchema;
  if (typeof json !== "object" || json === null) refuse(name, "its inputSchema has no JSON Schema");
  if (typeof (json as PromiseLike<unknown>).then === "function") {
    refuse(name, "its JSON Schema is only known asynchronously; pass the schema itself");
  }
  return json as JsonSchema;
}

function refuse(name: string, why: string): never {
  throw new DocketError(
    "invalid_tool",
    `The AI SDK tool "${name}" cannot be brought through the checkpoint: ${why}.`,
  );
}

/** The menu's description: the AI SDK lets it be a function of the call's context, which has none here. */
function describe(name: string, description: AiSdkTool["description"]): string {
  if (typeof description !== "function") return description ?? "";
  try {
    return description({ context: undefined });
  } catch {
    return refuse(name, "its description function failed");
  }
}

/** The last value of a streaming `execute` (its preliminary results are the AI SDK's UI's). */
async function lastOf(results: AsyncIterable<unknown>): Promise<unknown> {
  let last: unknown;
  for await (const result of results) last = result;
  return last;
}

/**
 * Bring a tool written for the AI SDK (`tool({ description, inputSchema, execute })`) through
 * docket's checkpoint unchanged: its description and schema are the menu entry, its `execute` the
 * sealed handler, run only after the call was read, validated, decided and, when asked, approved.
 * `execute` gets the call id, the checkpoint's signal (deadline and cancel) and no messages.
 * Tools docket cannot run (no `execute`, provider-executed ones) are refused here, as is a
 * `needsApproval` function without a docket ceiling in its place: an approval is never dropped.
 *
 * @example
 * ```ts
 * import { tool } from "ai";
 * import { z } from "zod";
 * import { createCheckpoint } from "../checkpoint/create-checkpoint.js";
 * const weather = tool({
 *   description: "The weather in a city. Use it when asked about the weather.",
 *   inputSchema: z.object({ city: z.string().describe("The city.") }),
 *   execute: async ({ city }) => ({ city, celsius: 21 }),
 * });
 * const checkpoint = createCheckpoint({ tools: [fromAiSdkTool(weather, { name: "weather", writes: false })] });
 * ```
 */
export function fromAiSdkTool(
  tool: AiSdkTool,
  { name, writes, timeoutMs, openWorld, needsApproval }: FromAiSdkToolOptions,
): Tool {
  const execute = tool.execute;
  if (tool.type === "provider") refuse(name, "the provider runs it, not docket");
  if (typeof execute !== "function") refuse(name, "it has no execute (the client runs it)");
  if (typeof tool.needsApproval === "function" && needsApproval === undefined) {
    refuse(
      name,
      "its needsApproval is a function; give fromAiSdkTool a needsApproval of the arguments in its place, or a policy rule that asks",
    );
  }
  const ceiling = needsApproval ?? (tool.needsApproval === true ? () => true : undefined);
  return defineTool({
    name,
    description: describe(name, tool.description),
    input: docketInput(name, tool.inputSchema as FlexibleSchema | undefined) as JsonSchema,
    writes,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    ...(openWorld ? { openWorld } : {}),
    ...(ceiling ? { needsApproval: ceiling } : {}),
    handler: async (args, ctx) => {
      const result = execute(args, {
        toolCallId: ctx.callId,
        messages: [],
        abortSignal: ctx.signal,
        context: undefined,
      });
      return result !== null && typeof result === "object" && Symbol.asyncIterator in result
        ? lastOf(result as AsyncIterable<unknown>)
        : await result;
    },
  });
}
