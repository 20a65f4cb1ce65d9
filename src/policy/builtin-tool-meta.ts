import { type BuiltinToolName, builtinPolicyArgs, builtinWrites } from "../builtin/policy-args.js";
import type { PolicyArgs, Tool } from "../tool/tool.js";

/** What policy needs to know about a tool without its schema or handler. */
export interface ToolMeta {
  readonly writes: boolean;
  readonly policyArgs: PolicyArgs;
}

/**
 * The built-in tools as policy sees them: whether each writes, and which argument holds its
 * path, command or URL: read from the built-in tools' own declarations, for `docket policy
 * check|test`, which judge calls without building the tools.
 *
 * @example
 * ```ts
 * BUILTIN_TOOL_META.run_command; // { writes: true, policyArgs: { command: "command" } }
 * ```
 */
export const BUILTIN_TOOL_META: Readonly<Record<string, ToolMeta>> = Object.freeze(
  // No prototype: looking up a user-given name such as "constructor" must find nothing.
  Object.assign(
    Object.create(null) as Record<string, ToolMeta>,
    Object.fromEntries(
      Object.entries(builtinPolicyArgs).map(([name, policyArgs]) => [
        name,
        { writes: builtinWrites[name as BuiltinToolName], policyArgs },
      ]),
    ),
  ),
);

/**
 * A menu entry built from metadata alone, enough for the policy engine to judge calls to it.
 *
 * @example
 * ```ts
 * const tool = toolFromMeta("read_file", BUILTIN_TOOL_META.read_file!);
 * engine.decide({ tool, args: { path: ".env" }, rawArguments: "{}", callId: "c1", principal: "cli", sessionId: undefined });
 * ```
 */
export function toolFromMeta(name: string, meta: ToolMeta): Tool {
  return {
    name,
    description: `${name} (policy metadata only)`,
    inputSchema: { type: "object" },
    writes: meta.writes,
    timeoutMs: undefined,
    policyArgs: meta.policyArgs,
    dedupes: false,
    openWorld: name === "fetch_url",
  };
}
