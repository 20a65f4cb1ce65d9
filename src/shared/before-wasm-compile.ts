let prepare: (() => void) | undefined;

/**
 * Give a function to run once, just before docket first compiles WebAssembly (tree-sitter's
 * runtime and the bash grammar). The CLI sets V8's `--liftoff-only` there rather than at start:
 * loading `node:v8` costs a cold process about 2 ms, and only a process that parses a shell
 * command with tree-sitter needs the flag (docs/adr/0021-cold-start-floor.md). The library sets
 * none: V8's flags are the host's.
 *
 * @example
 * ```ts
 * beforeWasmCompile(() => process.getBuiltinModule("node:v8").setFlagsFromString("--liftoff-only"));
 * ```
 */
export function beforeWasmCompile(run: () => void): void {
  prepare = run;
}

/**
 * Run what {@link beforeWasmCompile} was given, once (later calls do nothing). Called by the
 * only module that compiles WebAssembly, before it does.
 *
 * @example
 * ```ts
 * const { Parser } = await import("web-tree-sitter");
 * prepareWasmCompile();
 * await Parser.init();
 * ```
 */
export function prepareWasmCompile(): void {
  const run = prepare;
  prepare = undefined;
  run?.();
}
