import type { Command } from "commander";
import { disableColour } from "../shared/colour-enabled.js";
import { CommandExit } from "./command-exit.js";
import { registerCommands } from "./command-registry.js";
import { packageRoot } from "./package-root.js";
import { quietOnClosedPipe } from "./quiet-on-closed-pipe.js";
import { reportError } from "./report-error.js";

/** What a caller of the CLI can hook into. */
export interface ProgramOptions {
  /** Called when a command's action starts: not for `--help`, `--version` or a usage error. */
  readonly onAction?: () => void;
}

/**
 * Build the `docket` command. Given the arguments, only the command they choose is loaded and
 * registered (a cold `docket policy check` loads no MCP, Hono or model provider); without
 * them, or when they name no known command, every command is.
 *
 * @example
 * ```ts
 * const program = await createProgram();
 * await program.parseAsync(["node", "docket", "--version"]);
 * ```
 */
export async function createProgram(
  argv?: readonly string[],
  { onAction }: ProgramOptions = {},
): Promise<Command> {
  commander ??= await import("commander");
  const program = new commander.Command("docket")
    .description("The model asks; your program executes. Every tool call passes one checkpoint.")
    .version(packageRoot().version, "-v, --version")
    // A flag mistake gets its one line (and commander's "did you mean"), not the whole usage.
    .showHelpAfterError("(add --help for the usage)")
    .exitOverride()
    .option("--no-color", "plain text: no colour on the terminal (as NO_COLOR=1 does)")
    .hook("preAction", (command) => {
      if (command.opts().color === false) disableColour();
      onAction?.();
    });
  await registerCommands(program, argv);
  return program;
}

// Loaded with the first program: a `policy check` read by readPolicyCheckArgv never needs it.
let commander: typeof import("commander") | undefined;

export { quietOnClosedPipe } from "./quiet-on-closed-pipe.js";
export { reportError } from "./report-error.js";

/**
 * Run the CLI with the given arguments (without `node` and the script) and return the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(["--help"]);
 * ```
 */
export async function runCli(
  argv: readonly string[],
  options: ProgramOptions = {},
): Promise<number> {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  try {
    // Inside the try: a command whose modules fail to load is one line, never a stack trace.
    const program = await createProgram(argv, options);
    await program.parseAsync([...argv], { from: "user" });
    // Commands report failure through process.exitCode; keep it.
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommandExit) return error.exitCode;
    if (commander !== undefined && error instanceof commander.CommanderError) return error.exitCode;
    return reportError(error, argv);
  }
}
