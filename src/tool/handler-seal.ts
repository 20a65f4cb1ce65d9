import type { CompiledInput } from "./input-schema.js";
import type { Tool, ToolContext, ToolFailureReport } from "./tool.js";

/**
 * What only the checkpoint may touch: the function that acts, the validator it trusts, and the
 * hooks that run around it. Kept in a WeakMap so that no property, symbol or reflection on a
 * `Tool` value can reach it; the import rule keeps every module but `src/checkpoint/` (and
 * `define-tool.ts`, which seals) from importing this file.
 */
export interface SealedTool {
  readonly handler: (args: unknown, ctx: ToolContext) => unknown;
  readonly input: CompiledInput;
  readonly shape: ((output: unknown) => unknown) | undefined;
  readonly failure: ((output: unknown) => ToolFailureReport | undefined) | undefined;
  readonly dedupe:
    | { readonly key: (args: unknown) => string; readonly windowMs?: number }
    | undefined;
  /**
   * Whether this call writes, from its validated arguments: set for tools whose `writes` is a
   * function. The checkpoint resolves it once per call; a throw or rejection counts as a write.
   */
  readonly writesFor?: ((args: unknown) => boolean | Promise<boolean>) | undefined;
  /** The typed ceiling: true asks a human for a call the policy would allow. */
  readonly needsApproval?: ((args: unknown) => boolean) | undefined;
}

const sealed = new WeakMap<Tool, SealedTool>();

/** Bind a tool's menu entry to what runs it. Called once, by `defineTool`. */
export function sealHandler(tool: Tool, parts: SealedTool): void {
  sealed.set(tool, parts);
}

/** The sealed parts of a tool, or `undefined` for a value `defineTool` did not create. */
export function unsealHandler(tool: Tool): SealedTool | undefined {
  return sealed.get(tool);
}
