import { resolve } from "node:path";
import { runtimeOwnFiles } from "../protect/runtime-own-files.js";
import type { Tool } from "../tool/tool.js";
import { type FileGuard, type FilePolicy, fileGuard } from "./files/file-guard.js";
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
  /**
   * The policy the tools run under (a `createPolicyEngine` engine): its deny `path` rules keep
   * files out of every file tool, listings and searches included, and its exact allow rules are
   * the one way a file tool writes version-control metadata.
   */
  readonly policy?: FilePolicy;
}

/**
 * The tools an operator's agent needs in a workspace: files, shell and web. Each guards itself
 * (workspace jail, process-group kill, address checks, docket's own files kept out) even when a
 * policy allows everything. `guard` says which files are docket's own and which a deny rule
 * protects (default: `.docket/`, docket.yaml and `~/.config/docket/`).
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
  policy,
  ...files
}: BuiltinToolsOptions): Tool[] {
  const root = resolve(workspace);
  // Without a guard from the runtime, docket's usual files are still kept out: `.docket/`,
  // docket.yaml and the user config folder (the CLI passes the full set, store URL included).
  // Found when a handler first asks, not here: a process that only decides (a policy check)
  // never runs one. But from the folder and environment of now: a host that changes directory
  // or HOME before its first call still has the files of where it made the tools kept out.
  const guard = combineGuards(
    files.guard ?? defaultGuard(root, process.cwd(), { ...process.env }),
    fileGuard({ policy }),
  );
  return [
    ...fileTools(root, { ...files, guard }),
    runCommandTool(root, run),
    fetchUrlTool(root, fetch),
  ].filter((tool) => !exclude.includes(tool.name));
}

// Both guards hold: a caller's own guard never switches off what the policy's deny rules keep.
function combineGuards(first: FileGuard, second: FileGuard): FileGuard {
  const either =
    (a?: (absolute: string) => string | undefined, b?: (absolute: string) => string | undefined) =>
    (absolute: string) =>
      a?.(absolute) ?? b?.(absolute);
  return {
    own: either(first.own, second.own),
    secret: either(first.secret, second.secret),
    allowsExactly: (tool, absolute) =>
      first.allowsExactly?.(tool, absolute) === true ||
      second.allowsExactly?.(tool, absolute) === true,
  };
}

/** docket's usual own files, found from `cwd` and `env` when a handler first asks. */
function defaultGuard(workspace: string, cwd: string, env: NodeJS.ProcessEnv): FileGuard {
  let own: ReturnType<typeof runtimeOwnFiles> | undefined;
  return {
    own: (absolute: string) => {
      own ??= runtimeOwnFiles({ workspace, cwd, env });
      return own.find(absolute)?.what;
    },
  };
}
