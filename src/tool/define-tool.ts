import type { StandardSchemaV1 } from "@standard-schema/spec";
import { DocketError } from "../errors/docket-error.js";
import { sealHandler } from "./handler-seal.js";
import {
  type CompiledInput,
  compileInput,
  compileInputLazily,
  type JsonSchema,
} from "./input-schema.js";
import type { PolicyArgs, Tool, ToolConfinement, ToolContext, ToolFailureReport } from "./tool.js";
import { rememberToolInput } from "./tool-lint-warnings.js";

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
  /**
   * The arguments' schema: a Standard Schema (zod 4, valibot, arktype...) from which a JSON
   * Schema can be derived for the model's menu, or a JSON Schema object. The handler receives the
   * validated value, typed from the schema.
   */
  readonly input: I;
  /**
   * Required on purpose: nobody gets a write tool by forgetting to say so. A function decides
   * per call from the validated arguments (a `GET` reads, a `POST` writes; `run_command` reads
   * when its script is proven read-only): the checkpoint calls it once, after validation, and
   * every later step (policy defaults, intents, taint, approval) reads its answer; a throw or
   * rejection counts as a write. Where arguments are unknown (the menu, the gateway's
   * annotations), such a tool is shown as one that writes.
   */
  readonly writes: boolean | ((args: InferToolArgs<I>) => boolean | Promise<boolean>);
  /** The handler's deadline in ms (default: the checkpoint's `limits.defaultTimeoutMs`). */
  readonly timeoutMs?: number | undefined;
  /**
   * How to recognise a repeat of the same real-world action: a key from the arguments (and a
   * window). With a store, a call whose key matches an earlier success in the session gets that
   * result back instead of acting twice.
   */
  readonly dedupe?: DedupeOption<InferToolArgs<I>> | undefined;
  /**
   * A typed ceiling beside the policy's CEL: when the policy allows a call and this returns true
   * for its validated arguments, a human is asked instead (`needsApproval: ({ amount }) => amount
   * > 150`). It can only make a decision stricter; if it throws, the call is denied.
   */
  readonly needsApproval?: ((args: InferToolArgs<I>) => boolean) | undefined;
  readonly policyArgs?: PolicyArgs | undefined;
  /** For tools that start processes: whether they run in an OS sandbox (see `ToolConfinement`). */
  readonly confinement?: ToolConfinement | undefined;
  /**
   * Its results carry text from outside docket's trust (web pages, other people's APIs): they are
   * labelled as data for the model and taint the run, so later writes are asked. Default false.
   */
  readonly openWorld?: boolean | undefined;
  /**
   * Whether a call can carry data out of the session (an e-mail, an HTTP request, a message):
   * an outward channel. While a session holds both private data and untrusted content, such a
   * call is asked (or denied), and its arguments may not carry a credential (see
   * docs/information-flow.md). Default: classified from the tool (a URL the model chooses, an
   * unsandboxed command, an open-world tool that writes).
   */
  readonly sends?: boolean | undefined;
  /**
   * What the tool does. Only the checkpoint calls it, after the call was read, validated, decided
   * and (if asked) approved; it gets the validated arguments and a context with the call's id, a
   * cancellation signal (honour it) and an idempotency key. A throw becomes a `failed` result.
   */
  readonly handler: (args: InferToolArgs<I>, ctx: ToolContext) => O | Promise<O>;
  /** Turn the handler's output into what the model sees (default: the output itself). */
  readonly shape?: ((output: O) => unknown) | undefined;
  /**
   * Whether a returned output means the action failed (a non-zero exit, a signal, a deadline):
   * the call is then recorded as `failed` with the report's reason, its output kept.
   */
  readonly failure?: ((output: O) => ToolFailureReport | undefined) | undefined;
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
  if (typeof writes !== "boolean" && typeof writes !== "function") {
    invalid(
      name,
      "`writes` must be true, false or a function of the arguments: say whether running it can change anything.",
    );
  }
  if (definition.openWorld !== undefined && typeof definition.openWorld !== "boolean") {
    invalid(name, "`openWorld` must be true or false.");
  }
  if (definition.sends !== undefined && typeof definition.sends !== "boolean") {
    invalid(name, "`sends` must be true or false.");
  }
  if (typeof handler !== "function") invalid(name, "a handler function is required.");
  if (definition.needsApproval !== undefined && typeof definition.needsApproval !== "function")
    invalid(name, "needsApproval must be a function of the arguments.");
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
  return buildTool(definition, compileInput);
}

/**
 * `defineTool` for docket's own built-in tools: the same tool, except that its JSON Schema is
 * derived from the zod schema when first read (a menu, `docket tools`), not at definition, so a
 * process that only validates and decides calls (`docket policy check`) skips the conversion.
 * Their schemas are docket's and tested to convert (src/builtin/builtin-tools.test.ts); not
 * exported from the package, whose users get the definition-time check.
 *
 * @example
 * ```ts
 * import { z } from "zod";
 * const tool = defineBuiltinTool({ name: "echo", description: "Echo.", input: z.object({}), writes: false, handler: () => "ok" });
 * tool.inputSchema; // derived now: { type: "object", ... }
 * ```
 */
export function defineBuiltinTool<I extends StandardSchemaV1 | JsonSchema, O>(
  definition: ToolDefinition<I, O>,
): Tool {
  return buildTool(definition, compileInputLazily);
}

function buildTool<I extends StandardSchemaV1 | JsonSchema, O>(
  definition: ToolDefinition<I, O>,
  compile: (input: StandardSchemaV1 | JsonSchema, name: string) => CompiledInput,
): Tool {
  const loose = definition as unknown as ToolDefinition<StandardSchemaV1 | JsonSchema, unknown>;
  checkDefinition(loose);
  const input = compile(loose.input, loose.name);
  const dedupe =
    typeof loose.dedupe === "function" ? { key: loose.dedupe } : (loose.dedupe ?? undefined);
  const tool: Tool = Object.freeze({
    name: loose.name,
    description: loose.description,
    get inputSchema() {
      return input.jsonSchema;
    },
    // A per-call answer is unknown until the arguments are: the worst case stands for it.
    writes: loose.writes !== false,
    ...(typeof loose.writes === "function" ? { writesPerCall: true as const } : {}),
    timeoutMs: loose.timeoutMs,
    policyArgs: Object.freeze({ ...(loose.policyArgs ?? {}) }),
    dedupes: dedupe !== undefined,
    openWorld: loose.openWorld === true,
    ...(typeof loose.sends === "boolean" ? { sends: loose.sends } : {}),
    ...(loose.confinement ? { confinement: Object.freeze({ ...loose.confinement }) } : {}),
  });
  sealHandler(tool, {
    handler: loose.handler as (args: unknown, ctx: ToolContext) => unknown,
    input,
    shape: loose.shape,
    failure: loose.failure,
    dedupe: dedupe as { key: (args: unknown) => string; windowMs?: number } | undefined,
    needsApproval: loose.needsApproval as ((args: unknown) => boolean) | undefined,
    writesFor:
      typeof loose.writes === "function"
        ? (loose.writes as (args: unknown) => boolean | Promise<boolean>)
        : undefined,
  });
  rememberToolInput(tool, loose.input);
  return tool;
}
