import { type LintFinding, lintTool } from "./lint-tool.js";
import type { MenuEntry } from "./tool-surface.js";

/** Receives a tool's lint findings, once per tool name and process. */
export type ToolLintHandler = (findings: readonly LintFinding[]) => void;

/**
 * The default handler: one Node process warning per tool (type `DocketToolLint`), which Node
 * prints on standard error.
 *
 * @example
 * ```ts
 * setToolLintHandler(emitToolLintWarnings); // back to the default
 * ```
 */
export const emitToolLintWarnings: ToolLintHandler = (findings) => {
  const tool = findings[0]?.tool ?? "";
  const lines = findings.map((f) => `  ${f.path ? `${f.path}: ` : ""}${f.message} (${f.code})`);
  process.emitWarning(`tool ${tool} could be clearer to the model:\n${lines.join("\n")}`, {
    type: "DocketToolLint",
    detail: "Run `docket tools --lint` for the whole menu; see docs/observability.md.",
  });
};

let handler: ToolLintHandler | null = emitToolLintWarnings;
const reported = new Set<string>();
// The schema each tool was defined with: its refinements are not in the published JSON Schema.
const inputs = new WeakMap<MenuEntry, unknown>();

/**
 * Where tool lint findings go by default: a function, or null for nowhere. A checkpoint reports
 * them at its first dispatch (unless its `toolLint` option says otherwise); by default each tool
 * with findings emits one process warning of type `DocketToolLint` (`process.on("warning", …)`
 * sees it; `node --no-warnings` hides it). The docket CLI turns them off: operators have
 * `docket tools --lint`.
 *
 * @example
 * ```ts
 * declare const myLogger: { warn(fields: object, message: string): void };
 * setToolLintHandler((findings) => myLogger.warn({ findings }, "tool lint"));
 * ```
 */
export function setToolLintHandler(next: ToolLintHandler | null): void {
  handler = next;
}

/**
 * Keep the schema a tool was defined with, for its lint: nothing is linted or reported here, so
 * defining (or importing) a tool never prints anything.
 *
 * @example
 * ```ts
 * declare const tool: import("./tool.js").Tool;
 * declare const zodSchema: import("zod").ZodType; // what defineTool was given as `input`
 * rememberToolInput(tool, zodSchema);
 * ```
 */
export function rememberToolInput(entry: MenuEntry, input: unknown): void {
  inputs.set(entry, input);
}

/**
 * Report the findings of tools not yet reported in this process, one call of the handler per
 * tool with findings: what a checkpoint does at its first dispatch. Development only: nothing
 * when NODE_ENV is `production` (nor `test`, so test output stays the tests'). Never throws.
 *
 * @example
 * ```ts
 * declare const checkpoint: import("../checkpoint/create-checkpoint.js").Checkpoint;
 * reportToolLint(checkpoint.tools); // to the handler set by setToolLintHandler
 * reportToolLint(checkpoint.tools, (findings) => console.warn(findings));
 * ```
 */
export function reportToolLint(
  tools: readonly MenuEntry[],
  to: ToolLintHandler | null = handler,
): void {
  const mode = process.env.NODE_ENV;
  if (to === null || mode === "production" || mode === "test") return;
  for (const tool of tools) {
    if (reported.has(tool.name)) continue;
    reported.add(tool.name);
    try {
      const findings = lintDefinedTool(tool);
      if (findings.length > 0) to(findings);
    } catch {
      // A lint is advice; it never stops a call.
    }
  }
}

/**
 * Lint a tool, with the schema it was defined with when `defineTool` made it (so hidden zod
 * refinements are found); an MCP tool has only its published schema to lint.
 *
 * @example
 * ```ts
 * declare const tools: readonly import("./tool.js").Tool[];
 * for (const tool of tools) for (const f of lintDefinedTool(tool)) console.log(f.tool, f.message);
 * ```
 */
export function lintDefinedTool(entry: MenuEntry): LintFinding[] {
  return lintTool(entry, inputs.get(entry));
}

/**
 * Every finding over a set of tools, as `docket tools --lint` reports them: for a test that
 * holds an agent's own tools to the same standard (`expect(lintTools(tools)).toEqual([])`).
 *
 * @example
 * ```ts
 * import { lintTools } from "docket";
 * import { expect } from "vitest";
 * declare const getOrder: import("docket").Tool;
 * declare const issueRefund: import("docket").Tool;
 * expect(lintTools([getOrder, issueRefund])).toEqual([]);
 * ```
 */
export function lintTools(tools: Iterable<MenuEntry>): LintFinding[] {
  return [...tools].flatMap((tool) => lintDefinedTool(tool));
}
