import { DocketError } from "../errors/docket-error.js";
import type { Tool } from "./tool.js";

/**
 * The tools a checkpoint knows, by name. Lookups are own-property only (a `Map`), so a model
 * asking for `constructor` or `__proto__` finds nothing rather than something inherited.
 */
export interface ToolSet {
  /** The tool with exactly this name, or `undefined`. */
  get(name: string): Tool | undefined;
  /** Tool names in definition order. */
  readonly names: readonly string[];
  readonly tools: readonly Tool[];
}

/**
 * Build a tool set. Duplicate names are an error now, not an ambiguity at call time.
 *
 * @example
 * ```ts
 * declare const getOrder: import("./tool.js").Tool;
 * declare const issueRefund: import("./tool.js").Tool;
 * const set = createToolSet([getOrder, issueRefund]);
 * set.get("get_order"); // the tool
 * set.get("__proto__"); // undefined
 * ```
 */
export function createToolSet(tools: Iterable<Tool>): ToolSet {
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    if (typeof tool !== "object" || tool === null || typeof tool.name !== "string") {
      throw new DocketError("invalid_tool", "Every tool must be a value returned by defineTool.");
    }
    if (byName.has(tool.name)) {
      throw new DocketError(
        "duplicate_tool",
        `Two tools are named "${tool.name}": tool names must be unique.`,
      );
    }
    byName.set(tool.name, tool);
  }
  const list = Object.freeze([...byName.values()]);
  const names = Object.freeze([...byName.keys()]);
  return Object.freeze({
    get: (name: string) => (typeof name === "string" ? byName.get(name) : undefined),
    names,
    tools: list,
  });
}
