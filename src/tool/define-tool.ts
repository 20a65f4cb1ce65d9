import type { StandardSchemaV1 } from "@standard-schema/spec";
import { DocketError } from "../errors/docket-error.js";
import { sealHandler } from "./handler-seal.js";
import { compileInput, type JsonSchema } from "./input-schema.js";
import type { PolicyArgs, Tool, ToolConfinement, ToolContext, ToolFailureReport } from "./tool.js";
import { warnToolLint } from "./tool-lint-warnings.js";

/** The argument type a tool's handler receives, inferred from its input schema. */
export type InferToolArgs<I> = I extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<I>
  : Record<string, unknown>;

/**
 * How to recognise a repeat of the same real-world action (a refund for the same order and
 * amount): calls with an equal key in the same session, within the window, return the earlier
 * result instead of acting twice.
 */
export type DedupeOption<A> =
  | ((args: A) => string)
  | { readonly key: (args: A) => string; readonly windowMs?: number };

/** Everything `defineTool` needs. */
export interface ToolDefinition<I extends StandardSchemaV1 | JsonSchema, O> {
  /** `^[a-zA-Z0-9_-]{1,64}$`, the rule every major provider enforces. */
  readonly name: string;
  /** What the model reads to decide when to call the tool. Required. */
  readonly description: string;
  readonly input: I;
  /** Required on purpose: nobody gets a write tool by forgetting to say so. */
  readonly writes: boolean;
  readonly timeoutMs?: number;
  readonly dedupe?: DedupeOption<InferToolArgs<I>>;
  readonly policyArgs?: PolicyArgs;
  /** For tools that start processes: whether they run in an OS sandbox (see `ToolConfinement`). */
  readonly confinement?: ToolConfinement;
  /**
   * Its results carry text from outside docket's trust (web pages, other people's APIs): they are
   * labelled as data for the model and taint the run, so later writes are asked. Default false.
   */
  readonly openWorld?: boolean;
  readonly handler: (args: InferToolArgs<I>, ctx: ToolContext) => O | Promise<O>;
  /** Turn the handler's output into what the model sees (default: the output itself). */
  readonly shape?: (output: O) => unknown;
  /**
   * Whether a returned output means the action failed (a non-zero exit, a signal, a deadline):
   * the call is then recorded as `failed` with the report's reason, its output kept.
   */
  readonly failure?: (output: O) => ToolFailureReport | undefined;
}

const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

function invalid(name: unknown, problem: string): never {
  const label = typeof name === "string" ? `Tool "${name}"` : "Tool";
  throw new DocketError("invalid_tool", `${label}: ${problem}`);
}

function checkDefinition(definition: ToolDefinition<StandardSchemaV1 | JsonSchema, unknown>): void {
  const { name, description, writes, timeoutMs, handler, policyArgs } = definition;
  if (typeof name !== "string" || !NAME_PATTERN.test(name)) {
    invalid(name, "the name must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, _ and -).");
  }
  if (typeof description !== "string" || description.trim() === "") {
    invalid(name, "a description is required: it is how the model knows when to use the tool.");
  }
  if (typeof writes !== "boolean") {
    invalid(name, "`writes` must be true or false: say whether running it can change anything.");
  }
  if (definition.openWorld !== undefined && typeof definition.openWorld !== "boolean") {
    invalid(name, "`openWorld` must be true or false.");
  }
  if (typeof handler !== "function") invalid(name, "a handler function is required.");
  if (
    timeoutMs !== undefined &&
    (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > 2_147_483_647)
  ) {
    invalid(name, "`timeoutMs` must be a positive number of milliseconds.");
  }
  for (const [kind, key] of Object.entries(policyArgs ?? {})) {
    const keys = Array.isArray(key) ? key : [key];
    if (!["command", "path", "url"].includes(kind) || keys.some((k) => typeof k !== "string")) {
      invalid(name, `policyArgs.${kind} must name an argument (command, path or url).`);
    }
  }
}

/**
 * Define a tool: a menu entry for the model and a handler only the checkpoint can run.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * import { defineTool } from "docket";
 *
 * const getOrder = defineTool({
 *   name: "get_order",
 *   description: "Look up an order by its id.",
 *   input: z.object({ order_id: z.string() }),
 *   writes: false,
 *   handler: async ({ order_id }) => ({ order_id, status: "shipped" }),
 * });
 * ```
 */
export function defineTool<I extends StandardSchemaV1 | JsonSchema, O>(
  definition: ToolDefinition<I, O>,
): Tool {
  const loose = definition as unknown as ToolDefinition<StandardSchemaV1 | JsonSchema, unknown>;
  checkDefinition(loose);
  const input = compileInput(loose.input, loose.name);
  const dedupe =
    typeof loose.dedupe === "function" ? { key: loose.dedupe } : (loose.dedupe ?? undefined);
  const tool: Tool = Object.freeze({
    name: loose.name,
    description: loose.description,
    inputSchema: input.jsonSchema,
    writes: loose.writes,
    timeoutMs: loose.timeoutMs,
    policyArgs: Object.freeze({ ...(loose.policyArgs ?? {}) }),
    dedupes: dedupe !== undefined,
    openWorld: loose.openWorld === true,
    ...(loose.confinement ? { confinement: Object.freeze({ ...loose.confinement }) } : {}),
  });
  sealHandler(tool, {
    handler: loose.handler as (args: unknown, ctx: ToolContext) => unknown,
    input,
    shape: loose.shape,
    failure: loose.failure,
    dedupe: dedupe as { key: (args: unknown) => string; windowMs?: number } | undefined,
  });
  warnToolLint(tool, loose.input);
  return tool;
}
