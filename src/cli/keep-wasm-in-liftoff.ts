/**
 * What keeps WebAssembly in Liftoff when set at run time. `--liftoff-only` alone does so only
 * from the command line: set through node:v8 on Node 24 (V8 13.6), dynamic tiering still sends a
 * hot function to TurboFan, and the bash grammar's lexer is one that costs TurboFan about 700 MB
 * for half a second (ADR 0063). The tier-up filter, read at each tier-up, allows it only for a
 * function index no module has.
 */
export const LIFTOFF_FLAGS = "--liftoff-only --wasm-tier-up-filter=2147483647";

/**
 * Keep WebAssembly in V8's baseline compiler (Liftoff) for the rest of the process. A tree-sitter
 * parse otherwise makes V8 optimise the bash grammar's lexer on a background thread, which no
 * docket process uses but every one waits for at exit (about 400 ms after a policy check has
 * answered) and which holds about 700 MB while it runs; parsing is no slower
 * (docs/adr/0019-cold-policy-check.md, docs/adr/0063-wasm-tier-up-memory.md). Only the CLI calls
 * it: the library leaves V8's flags to its host. It must run before WebAssembly is first compiled.
 *
 * @example
 * ```ts
 * import { beforeWasmCompile } from "../shared/before-wasm-compile.js";
 * beforeWasmCompile(keepWasmInLiftoff); // just before tree-sitter's first compile
 * ```
 */
export function keepWasmInLiftoff(): void {
  process.getBuiltinModule("node:v8").setFlagsFromString(LIFTOFF_FLAGS);
}
