// First: no tool may be defined before the development lint warnings are turned off.
import "./quiet-tool-lint.js";
import type { HookRunner } from "../hook/hook-guard.js";

// The command's modules are imported when it runs: the script's top level then runs nothing the
// command does not reach (docs/adr/0087-the-cli-is-one-cached-script.md).

/** What the built CLI's loader of this bundle (cli-loader.ts) hooks into. */
export interface CommandLineHooks {
  /** Called once, just before the command sets a V8 flag (before tree-sitter's first compile). */
  readonly beforeV8Flags?: () => void;
  /** Called when a command's action starts: not for `--help`, `--version` or a usage error. */
  readonly onAction?: () => void;
}

/**
 * Every `docket` command but a hook call and the plain `policy check` main.ts reads itself (each
 * has a bundle of its own): the entry of the CLI's CommonJS bundle, which the built CLI compiles
 * through V8's code cache (cli-loader.ts, docs/adr/0087-the-cli-is-one-cached-script.md). The
 * sources run it as a module like any other. Returns the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runCommandLine(process.argv.slice(2));
 * ```
 */
export async function runCommandLine(
  argv: readonly string[],
  { beforeV8Flags, onAction }: CommandLineHooks = {},
): Promise<number> {
  const [{ beforeWasmCompile }, { keepWasmInLiftoff }, { reportError }, { runCli }] =
    await Promise.all([
      import("../shared/before-wasm-compile.js"),
      import("./keep-wasm-in-liftoff.js"),
      import("./report-error.js"),
      import("./run-cli.js"),
    ]);
  // Whatever escapes a command (an error event nobody handled, a rejected promise nobody
  // awaited) ends docket with one line and a log, never a stack trace. This bundle's own
  // reporter: a DocketError of this bundle is not one of the launcher's.
  const crash = (error: unknown) => {
    process.exitCode = reportError(error, argv);
    process.exit();
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
  // Every command sets --liftoff-only just before tree-sitter's first compile, and none at start:
  // a flag set before Node's own modules load makes Node compile each of them from source
  // (docs/adr/0093-no-v8-flag-at-start.md). The code cache's data is taken first: V8 rejects
  // data made under flags a later process does not start with.
  beforeWasmCompile(() => {
    beforeV8Flags?.();
    keepWasmInLiftoff();
  });
  return runCli(argv, { onAction });
}

/**
 * A hook call answered in this process (`docket hook HOST`): hook-main.ts's runner, from the one
 * script in the built CLI. main.ts's guard answers deny if it fails to load or throws.
 *
 * @example
 * ```ts
 * const input = { host: "claude-code", text: "{}", config: undefined, store: undefined };
 * const reply = await hookRunner({ ...input, onDeadline: () => {} });
 * ```
 */
export async function hookRunner(
  input: Parameters<HookRunner>[0],
  { beforeV8Flags }: Pick<CommandLineHooks, "beforeV8Flags"> = {},
): ReturnType<HookRunner> {
  const [{ beforeWasmCompile }, { keepWasmInLiftoff }, hook] = await Promise.all([
    import("../shared/before-wasm-compile.js"),
    import("./keep-wasm-in-liftoff.js"),
    import("../hook/hook-main.js"),
  ]);
  // As for a command: Liftoff just before tree-sitter's first compile, the cache's data first.
  beforeWasmCompile(() => {
    beforeV8Flags?.();
    keepWasmInLiftoff();
  });
  return hook.hookRunner(input);
}

export { ranToolCalls } from "./ran-tool-calls.js";
