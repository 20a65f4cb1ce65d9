import type { Command } from "commander";
import { disableColour } from "../shared/colour-enabled.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import { CommandExit } from "./command-exit.js";
import { registerCommands } from "./command-registry.js";
import { readPolicyCheckArgv } from "./commands/policy-check-argv.js";
import { isExpectedError, writeCrashLog } from "./crash-log.js";
import { packageRoot } from "./package-root.js";

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
export async function createProgram(argv?: readonly string[]): Promise<Command> {
  commander ??= await import("commander");
  const program = new commander.Command("docket")
    .description("The model asks; your program executes. Every tool call passes one checkpoint.")
    .version(packageRoot().version, "-v, --version")
    .showHelpAfterError()
    .exitOverride()
    .option("--no-color", "plain text: no colour on the terminal (as NO_COLOR=1 does)")
    .hook("preAction", (command) => {
      if (command.opts().color === false) disableColour();
    });
  await registerCommands(program, argv);
  return program;
}

// Loaded with the first program: a `policy check` read by readPolicyCheckArgv never needs it.
let commander: typeof import("commander") | undefined;

const quieted = new WeakSet<NodeJS.WriteStream>();

/**
 * A reader that goes away (`docket … --json | head -1`) closes the pipe: what is left to print
 * is dropped, quietly, and the command still ends as it would have (status 0 for a list),
 * rather than an EPIPE stack trace. Any other write error is left to the crash handler.
 *
 * @example
 * ```ts
 * quietOnClosedPipe(process.stdout);
 * ```
 */
export function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  if (quieted.has(stream)) return;
  quieted.add(stream);
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    // Later writes go nowhere; the callback still runs so nothing waits on a drain forever.
    stream.write = ((...args: unknown[]) => {
      const callback = args.find((arg) => typeof arg === "function") as (() => void) | undefined;
      callback?.();
      return true;
    }) as typeof stream.write;
  });
}

/**
 * Report an error in one line on standard error: a `DocketError` or a command's own words as
 * they are; anything unexpected as one line saying where the full error was logged. Never a
 * stack trace. Returns the exit code (1).
 *
 * @example
 * ```ts
 * process.exitCode = reportError(error, process.argv.slice(2));
 * ```
 */
export function reportError(error: unknown, argv: readonly string[]): number {
  const message = maskSecrets(String((error as Error)?.message ?? error)).split("\n")[0];
  if (isExpectedError(error)) {
    process.stderr.write(`docket: ${message}\n`);
    return 1;
  }
  const log = writeCrashLog(error, argv);
  process.stderr.write(
    `docket: unexpected error: ${message}${log ? ` (details in ${log})` : ""}\n`,
  );
  return 1;
}

/**
 * Run the CLI with the given arguments (without `node` and the script) and return the exit code.
 *
 * @example
 * ```ts
 * process.exitCode = await runCli(["--help"]);
 * ```
 */
export async function runCli(argv: readonly string[]): Promise<number> {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  try {
    // Inside the try: a command whose modules fail to load is one line, never a stack trace.
    const check = readPolicyCheckArgv(argv);
    if (check !== undefined) {
      // The form scripts and hooks use, without commander: what it would have read.
      const { runCheck } = await import("./commands/policy-check.js");
      await runCheck(check.tool, check.args, {
        tool: [],
        principal: "cli",
        ...(check.json ? { json: true } : {}),
      });
    } else {
      const program = await createProgram(argv);
      await program.parseAsync([...argv], { from: "user" });
    }
    // Commands report failure through process.exitCode; keep it.
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommandExit) return error.exitCode;
    if (commander !== undefined && error instanceof commander.CommanderError) return error.exitCode;
    return reportError(error, argv);
  }
}
