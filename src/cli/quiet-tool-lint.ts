import { setToolLintHandler } from "../tool/tool-lint-warnings.js";

/**
 * Imported first by the CLI's entry point, before any tool is defined: the operator running
 * docket did not write its tools (built-in or MCP), so `defineTool`'s development warnings are
 * off here; `docket tools --lint` shows the same findings on request.
 *
 * @example
 * ```ts
 * import "./quiet-tool-lint.js";
 * ```
 */
export const toolLintQuieted = true;
setToolLintHandler(null);
