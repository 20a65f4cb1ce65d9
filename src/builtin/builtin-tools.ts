import { resolve } from "node:path";
import type { Tool } from "../tool/tool.js";
import { type FileToolOptions, fileTools } from "./files/file-tools.js";
import type { RunCommandOptions } from "./shell/run-command.handler.js";
import { runCommandTool } from "./shell/run-command-tool.js";
import type { FetchUrlOptions } from "./web/fetch-url.handler.js";
import { fetchUrlTool } from "./web/fetch-url-tool.js";

/** Where the built-in tools work and how. */
export interface BuiltinToolsOptions extends FileToolOptions {
  /** The folder every path must stay inside. */
  readonly workspace: string;
  readonly run?: RunCommandOptions;
  readonly fetch?: FetchUrlOptions;
  /** Leave some out, by name. */
  readonly exclude?: readonly string[];
}

/**
 * The tools an operator's agent needs in a workspace: files, shell and web. Each guards itself
 * (workspace jail, process-group kill, address checks) even when a policy allows everything.
 *
 * @example
 * ```ts
 * import { builtinTools, createCheckpoint } from "docket";
 * const checkpoint = createCheckpoint({ tools: builtinTools({ workspace: process.cwd() }) });
 * ```
 */
export function builtinTools({
  workspace,
  run,
  fetch,
  exclude = [],
  ...files
}: BuiltinToolsOptions): Tool[] {
  const root = resolve(workspace);
  return [...fileTools(root, files), runCommandTool(root, run), fetchUrlTool(root, fetch)].filter(
    (tool) => !exclude.includes(tool.name),
  );
}
