import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ModelScript, ScriptedCall, ScriptedTurn } from "../../../src/model/model-script.js";

/**
 * One scripted tool call. Object arguments are serialised; a string is kept as the raw text
 * the model "produced", so malformed JSON can be scripted.
 *
 * @example
 * ```ts
 * call("call_1", "get_order", { order_id: "SU-1" });
 * call("call_2", "get_order", '{"order_id": "SU-2"'); // unreadable
 * ```
 */
export function call(id: string, name: string, args: object | string = {}): ScriptedCall {
  return { id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) };
}

/**
 * One scripted assistant turn: its words and its tool calls.
 *
 * @example
 * ```ts
 * turn("Let me look.", call("call_1", "get_order", { order_id: "SU-1" }));
 * ```
 */
export function turn(text: string, ...calls: ScriptedCall[]): ScriptedTurn {
  return { text, toolCalls: calls };
}

/**
 * A script built in code, with the same shape `parseModelScript` returns.
 *
 * @example
 * ```ts
 * const model = createScriptedModel(scriptOf([turn("Hello.")]));
 * ```
 */
export function scriptOf(turns: readonly ScriptedTurn[], source = "test-script"): ModelScript {
  return { source, turns };
}

/**
 * Write a script as a file `scripted:FILE` can load (JSON is YAML), for model strings and child
 * processes. Returns the file's path.
 *
 * @example
 * ```ts
 * const file = await writeScriptFile(dir, [turn("Done.")]);
 * createHarness({ model: `scripted:${file}` });
 * ```
 */
export async function writeScriptFile(
  dir: string,
  turns: readonly ScriptedTurn[],
  name = "script.yaml",
): Promise<string> {
  const file = join(dir, name);
  const body = {
    turns: turns.map((t) => ({
      ...(t.text !== undefined ? { text: t.text } : {}),
      ...(t.usage ? { usage: t.usage } : {}),
      ...(t.error !== undefined ? { error: t.error } : {}),
      ...(t.toolCalls.length > 0
        ? {
            tool_calls: t.toolCalls.map((c) => ({
              id: c.id,
              name: c.name,
              arguments: c.arguments,
            })),
          }
        : {}),
    })),
  };
  await writeFile(file, `${JSON.stringify(body, null, 2)}\n`);
  return file;
}
