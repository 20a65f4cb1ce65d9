/**
 * Keep WebAssembly in V8's baseline compiler (Liftoff) for the rest of the process. A tree-sitter
 * parse otherwise makes V8 optimise the bash grammar's lexer on a background thread, which no
 * docket process uses but every one waits for at exit (about 400 ms after a policy check has
 * answered); parsing is no slower (docs/adr/0019-cold-policy-check.md). Only the CLI calls it:
 * the library leaves V8's flags to its host. It must run before WebAssembly is first compiled.
 *
 * @example
 * ```ts
 * beforeWasmCompile(keepWasmInLiftoff); // just before tree-sitter's first compile
 * ```
 */
export function keepWasmInLiftoff(): void {
  process.getBuiltinModule("node:v8").setFlagsFromString("--liftoff-only");
}
