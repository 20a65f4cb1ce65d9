import type { FileGuard } from "./files/file-guard.js";

/**
 * What every built-in handler receives besides its arguments: the workspace it is jailed to and
 * the signal that cancels it. Per-tool settings (caps, timeouts, environment) are a separate,
 * third parameter of each handler, with defaults.
 *
 * @example
 * ```ts
 * const ctx: BuiltinContext = { workspace: "/home/me/project", signal: AbortSignal.timeout(60_000) };
 * import { readFile } from "./files/read-file.handler.js";
 * await readFile({ path: "README.md" }, ctx);
 * ```
 */
export interface BuiltinContext {
  /** Absolute path of the workspace root; every path argument must resolve inside it. */
  workspace: string;
  /** Aborts the handler; long-running work (commands, fetches, walks) stops and cleans up. */
  signal: AbortSignal;
  /** docket's own files and deny-protected files, kept from the file tools (default: none). */
  guard?: FileGuard | undefined;
  /**
   * Live output for a person watching (`ToolContext.output`); must be quick (default: none). The
   * chunk is a view of a reused buffer, valid only during the call: copy what is kept.
   */
  onOutput?: ((chunk: Uint8Array, stream: "stdout" | "stderr") => void) | undefined;
  /** A line in the call's audit trail (`ToolContext.log`), e.g. each sandbox network connection. */
  log?: ((message: string, data?: unknown) => void) | undefined;
}
