import { readFile } from "node:fs/promises";
import { LineCounter, parseDocument } from "yaml";
import { z } from "zod";
import { DocketError } from "../errors/docket-error.js";

const scriptedCall = z
  .object({
    id: z.string().min(1),
    name: z.string(),
    /** Raw argument text, exactly as the model would send it: malformed input can be scripted. */
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]),
  })
  .strict();

const turnCondition = z
  .object({
    /** The result of this call; without it, the last result the model was sent. */
    call: z.string().min(1).optional(),
    /** `error`: it was sent as an error (refused or failed); `ok`: it was not. */
    result: z.enum(["ok", "error"]).optional(),
    /** Words the result's text contains. */
    contains: z.string().optional(),
  })
  .strict();

interface RawTurn {
  text?: string | undefined;
  tool_calls?: z.infer<typeof scriptedCall>[] | undefined;
  usage?: { input: number; output: number } | undefined;
  error?: string | undefined;
  when?: z.infer<typeof turnCondition> | undefined;
  else?: RawTurn | undefined;
}

const scriptedTurn: z.ZodType<RawTurn> = z.lazy(() =>
  z
    .object({
      text: z.string().optional(),
      tool_calls: z.array(scriptedCall).optional(),
      usage: z
        .object({ input: z.number().int().min(0), output: z.number().int().min(0) })
        .strict()
        .optional(),
      /** Fail this turn with a provider-like error, to script outages. */
      error: z.string().optional(),
      /** Play this turn only when the earlier result matches; otherwise play `else`. */
      when: turnCondition.optional(),
      else: scriptedTurn.optional(),
    })
    .strict(),
);

const modelScript = z.object({ turns: z.array(scriptedTurn).min(1) }).strict();

const turnFields = ["text", "tool_calls", "usage", "error", "when", "else"];

/** The fields the object at `path` may have, said as a person would look them up. */
function fieldsAt(path: readonly PropertyKey[]): string {
  const [parent, last] = [path.at(-2), path.at(-1)];
  const [what, fields]: [string, readonly string[]] =
    path.length === 0
      ? ["a script", Object.keys(modelScript.shape)]
      : last === "when"
        ? ["when", Object.keys(turnCondition.shape)]
        : last === "usage"
          ? ["usage", ["input", "output"]]
          : parent === "tool_calls"
            ? ["a tool call", Object.keys(scriptedCall.shape)]
            : ["a turn", turnFields];
  return `${what} has ${fields.join(", ")}`;
}

/** One scripted tool call: its raw argument text is kept as written. */
export interface ScriptedCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** What a turn's `when` asks of the results the model was just sent. */
export interface TurnCondition {
  readonly call?: string;
  readonly result?: "ok" | "error";
  readonly contains?: string;
}

/**
 * One assistant turn of a script. With `when`, it is played only when the results the model was
 * just sent match; otherwise `else` is (which may have its own `when`), so a script can follow
 * what really happened: a denied refund is answered differently from an approved one.
 */
export interface ScriptedTurn {
  readonly text?: string;
  readonly toolCalls: readonly ScriptedCall[];
  readonly usage?: { readonly input: number; readonly output: number };
  readonly error?: string;
  readonly when?: TurnCondition;
  readonly else?: ScriptedTurn;
}

/** A scripted conversation: the assistant's turns, in order. */
export interface ModelScript {
  readonly turns: readonly ScriptedTurn[];
  /** Where it was loaded from, for messages. */
  readonly source: string;
}

/**
 * Parse a script from YAML or JSON text. Errors name the source and line.
 *
 * @example
 * ```ts
 * const script = parseModelScript("turns:\n  - text: Hello\n", "inline");
 * ```
 */
export function parseModelScript(text: string, source: string): ModelScript {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const syntax = document.errors[0];
  if (syntax) {
    const line = lineCounter.linePos(syntax.pos[0]).line;
    throw new DocketError("script_invalid", `${source}:${line}: ${syntax.message.split("\n")[0]}`);
  }
  const parsed = modelScript.safeParse(document.toJS());
  if (!parsed.success) {
    // A misspelt field is also a missing one: the unknown name says more than the absence.
    const issues = parsed.error.issues;
    const issue = issues.find((one) => one.code === "unrecognized_keys") ?? issues[0];
    const unknown = issue?.code === "unrecognized_keys" ? issue.keys : [];
    // An unknown field is reported at its own line, by name: the misspelling is the point.
    const path = [...(issue?.path ?? []), ...unknown.slice(0, 1)];
    const node = document.getIn(path, true) as { range?: [number, number] } | undefined;
    const line = node?.range ? lineCounter.linePos(node.range[0]).line : 1;
    const where = (issue?.path ?? []).join(".") || "(root)";
    const why =
      unknown.length > 0
        ? `unknown field ${unknown.map((key) => JSON.stringify(key)).join(", ")} (${fieldsAt(issue?.path ?? [])})`
        : (issue?.message ?? "invalid script");
    throw new DocketError("script_invalid", `${source}:${line}: ${where}: ${why}`);
  }
  return { source, turns: parsed.data.turns.map(toTurn) };
}

function toTurn(turn: RawTurn): ScriptedTurn {
  return {
    text: turn.text,
    usage: turn.usage,
    error: turn.error,
    toolCalls: (turn.tool_calls ?? []).map((call) => ({
      id: call.id,
      name: call.name,
      arguments:
        typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    })),
    ...(turn.when ? { when: turn.when } : {}),
    ...(turn.else ? { else: toTurn(turn.else) } : {}),
  };
}

/**
 * Load a script file (YAML or JSON).
 *
 * @example
 * ```ts
 * const script = await loadModelScript("examples/support-desk/script.yaml");
 * ```
 */
export async function loadModelScript(path: string): Promise<ModelScript> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (cause) {
    throw new DocketError(
      "script_invalid",
      `Cannot read the model script ${path}: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  return parseModelScript(text, path);
}
