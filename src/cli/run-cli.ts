import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { registerPolicyCommand } from "./commands/policy-command.js";

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Build the `docket` command. Subcommands register themselves here as they land.
 *
 * @example
 * ```ts
 * const program = createProgram();
 * await program.parseAsync(["node", "docket", "--version"]);
 * ```
 */
export function createProgram(): Command {
  const program = new Command("docket")
    .description("The model asks; your program executes. Every tool call passes one checkpoint.")
    .version(packageVersion(), "-v, --version")
    .showHelpAfterError()
    .exitOverride();
  registerPolicyCommand(program);
  return program;
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
  const program = createProgram();
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    console.error(`docket: ${(error as Error).message}`);
    return 1;
  }
}
