import { worstCaseWrites } from "../builtin/builtin-lists.js";
import { BUILTIN_MANIFEST, type BuiltinManifest } from "../builtin/builtin-manifest.js";
import type { PolicyArgs, Tool } from "../tool/tool.js";

/** What policy needs to know about a tool without its schema or handler. */
export interface ToolMeta {
  readonly writes: boolean;
  readonly policyArgs: PolicyArgs;
  /** Its results are open-world data (taint); false when not said. */
  readonly openWorld?: boolean;
}

/**
 * Policy's view of a manifest's tools: whether each writes (worst case where it decides per
 * call), which argument holds its path, command or URL, and whether it is open-world.
 *
 * @example
 * ```ts
 * import { BUILTIN_MANIFEST } from "../builtin/builtin-manifest.js";
 * toolMetaOf(BUILTIN_MANIFEST).fetch_url; // { writes: false, policyArgs: { url: "url" }, openWorld: true }
 * ```
 */
export function toolMetaOf(manifest: BuiltinManifest): Readonly<Record<string, ToolMeta>> {
  return Object.freeze(
    // No prototype: looking up a user-given name such as "constructor" must find nothing.
    Object.assign(
      Object.create(null) as Record<string, ToolMeta>,
      Object.fromEntries(
        Object.entries(manifest).map(([name, entry]) => [
          name,
          {
            writes: worstCaseWrites(entry),
            policyArgs: entry.policyArgs,
            openWorld: entry.openWorld,
          },
        ]),
      ),
    ),
  );
}

/**
 * The built-in tools as policy sees them, read from the built-in manifest, for `docket policy
 * check|test`, which judge calls without building the tools.
 *
 * @example
 * ```ts
 * BUILTIN_TOOL_META.run_command; // { writes: true, policyArgs: { command: "command" }, openWorld: false }
 * ```
 */
export const BUILTIN_TOOL_META: Readonly<Record<string, ToolMeta>> = toolMetaOf(BUILTIN_MANIFEST);

/**
 * A menu entry built from metadata alone, enough for the policy engine to judge calls to it.
 *
 * @example
 * ```ts
 * import { createPolicyEngine } from "docket";
 * const engine = await createPolicyEngine({ layers: [{ name: "project", rules: [] }] });
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
    openWorld: meta.openWorld === true,
  };
}
