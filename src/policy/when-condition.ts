import type { Environment } from "@marcbachmann/cel-js";
import { loadCel } from "./load-cel.js";
import { type WhenReads, whenReads } from "./when-reads.js";

/** The variables a `when` expression can read. */
export interface ConditionContext {
  readonly args: Readonly<Record<string, unknown>>;
  /** The requesting principal. */
  readonly principal: string;
  /**
   * `{ id, labels }`: the session id (`""` when there is none) and the labels it holds
   * (`"private"`, `"untrusted"`; see docs/information-flow.md).
   */
  readonly session: { readonly id: string; readonly labels?: readonly string[] };
  /** `{ name, writes }` of the tool called. */
  readonly tool: { readonly name: string; readonly writes: boolean };
  /** `{ tainted, tainted_by }`: whether an open-world result came before, and from which tools. */
  readonly run: { readonly tainted: boolean; readonly tainted_by: readonly string[] };
  /** `{ sends }`: whether the call can carry data out of the session (an outward channel). */
  readonly call?: { readonly sends: boolean };
  /**
   * `{ id, client, scopes, groups }`: the principal and what its credentials said (an OAuth
   * token's client, scopes and groups; empty lists and `client: ""` when they said nothing).
   */
  readonly caller?: {
    readonly id: string;
    readonly client: string;
    readonly scopes: readonly string[];
    readonly groups: readonly string[];
  };
}

/** How evaluating a condition came out. */
export type ConditionResult =
  | { readonly ok: true; readonly value: boolean }
  | { readonly ok: false; readonly error: string };

/** A compiled `when` expression. */
export interface WhenCondition {
  /** The expression as written. */
  readonly text: string;
  /** The argument keys it reads (`all` when that cannot be told): a session grant binds them. */
  readonly reads: WhenReads;
  /** Evaluate; never throws. A failure or a non-boolean result is `{ ok: false }`. */
  evaluate(context: ConditionContext): ConditionResult;
}

// One environment for every rule: the variables are declared so a typo (`arg.amount`) is a
// load error, not a condition that silently never holds. Made with the first condition.
let environment: Environment | undefined;

function celEnvironment(): Environment {
  environment ??= new (loadCel().Environment)()
    .registerVariable("args", "map")
    .registerVariable("principal", "string")
    .registerVariable("session", "map")
    .registerVariable("tool", "map")
    .registerVariable("run", "map")
    .registerVariable("call", "map")
    .registerVariable("caller", "map");
  return environment;
}

/**
 * Compile a CEL expression once (parse and type-check). Throws an `Error` with the CEL message
 * when it does not parse, names an unknown variable, or can only produce a non-boolean.
 *
 * JSON numbers reach CEL as doubles; CEL compares doubles with int literals, so
 * `args.amount > 150` works, but arithmetic needs doubles: `args.amount + 1.0`.
 *
 * @example
 * ```ts
 * const when = compileWhen("args.amount > 150");
 * when.evaluate({ args: { amount: 200 }, principal: "agent", session: { id: "" }, tool: { name: "issue_refund", writes: true }, run: { tainted: false, tainted_by: [] } });
 * // { ok: true, value: true }
 * ```
 */
export function compileWhen(text: string): WhenCondition {
  if (text.trim() === "") throw new Error("the expression is empty");
  let program: ReturnType<Environment["parse"]>;
  try {
    program = celEnvironment().parse(text);
  } catch (error) {
    throw new Error(firstLine(error));
  }
  const check = program.check();
  if (!check.valid) throw new Error(firstLine(check.error));
  if (check.type !== "bool" && check.type !== "dyn") {
    throw new Error(`the expression gives ${check.type}, not bool`);
  }
  return {
    text,
    reads: whenReads(program.ast),
    evaluate(context) {
      let value: unknown;
      try {
        // A context built without a caller (a policy test case, a library caller) says nothing.
        const withCaller =
          context.caller === undefined
            ? { ...context, caller: { id: context.principal, client: "", scopes: [], groups: [] } }
            : context;
        value = program(withCaller as unknown as Record<string, unknown>);
      } catch (error) {
        return { ok: false, error: firstLine(error) };
      }
      if (typeof value !== "boolean") {
        return { ok: false, error: `the expression gave ${describe(value)}, not a boolean` };
      }
      return { ok: true, value };
    },
  };
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0]?.trim() ?? message;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "bigint") return `the int ${value}`;
  if (typeof value === "object") return Array.isArray(value) ? "a list" : "a map";
  return `the ${typeof value} ${JSON.stringify(value)}`;
}
