import { type LintFinding, lintTool } from "./lint-tool.js";
import type { MenuEntry } from "./tool-surface.js";

/** Receives a tool's lint findings, once per tool name. */
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
const warned = new Set<string>();
// The schema each tool was defined with: its refinements are not in the published JSON Schema.
const inputs = new WeakMap<MenuEntry, unknown>();

/**
 * Where `defineTool`'s development-time lint findings go: a function, or null for nowhere. By
 * default each tool with findings emits one process warning of type `DocketToolLint`
 * (`process.on("warning", …)` sees it; `node --no-warnings` hides it). The docket CLI turns them
 * off: operators have `docket tools --lint`.
 *
 * @example
 * ```ts
 * setToolLintHandler((findings) => myLogger.warn({ findings }, "tool lint"));
 * ```
 */
export function setToolLintHandler(next: ToolLintHandler | null): void {
  handler = next;
}

/**
 * Lint a newly defined tool and report its findings, once per tool name, in development only:
 * not when NODE_ENV is `production` (nor `test`, so test output stays the tests'). Never throws.
 *
 * @example
 * ```ts
 * warnToolLint({ name: "echo", description: "Echo.", inputSchema: {} }, zodSchema);
 * ```
 */
export function warnToolLint(entry: MenuEntry, input: unknown): void {
  inputs.set(entry, input);
  const mode = process.env.NODE_ENV;
  if (handler === null || mode === "production" || mode === "test") return;
  if (warned.has(entry.name)) return;
  warned.add(entry.name);
  try {
    const findings = lintTool(entry, input);
    if (findings.length > 0) handler(findings);
  } catch {
    // A lint is advice; it never stops a tool from being defined.
  }
}

/**
 * Lint a tool, with the schema it was defined with when `defineTool` made it (so hidden zod
 * refinements are found); an MCP tool has only its published schema to lint.
 *
 * @example
 * ```ts
 * for (const tool of tools) for (const f of lintDefinedTool(tool)) console.log(f.tool, f.message);
 * ```
 */
export function lintDefinedTool(entry: MenuEntry): LintFinding[] {
  return lintTool(entry, inputs.get(entry));
}
