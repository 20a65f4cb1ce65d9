import { BUILTIN_TOOL_META, toolFromMeta } from "../../../src/policy/builtin-tool-meta.js";
import type { PolicyRequest } from "../../../src/policy/policy.js";
import type { PolicyArgs } from "../../../src/tool/tool.js";

/**
 * A policy request for a tool: a built-in by name, or any name with the given metadata.
 *
 * @example
 * ```ts
 * await engine.decide(call("read_file", { path: ".env" }));
 * ```
 */
export function call(
  name: string,
  args: Record<string, unknown> = {},
  options: {
    writes?: boolean;
    policyArgs?: PolicyArgs;
    principal?: string;
    sessionId?: string;
  } = {},
): PolicyRequest {
  const builtin = BUILTIN_TOOL_META[name];
  const tool = toolFromMeta(name, {
    writes: options.writes ?? builtin?.writes ?? false,
    policyArgs: options.policyArgs ?? builtin?.policyArgs ?? {},
  });
  return {
    tool,
    args,
    rawArguments: JSON.stringify(args),
    callId: "call_1",
    principal: options.principal ?? "agent",
    sessionId: options.sessionId,
  };
}
