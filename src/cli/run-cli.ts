import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { registerApprovalsCommand } from "./commands/approvals-command.js";
import { registerAuditCommand } from "./commands/audit-command.js";
import { registerPolicyCommand } from "./commands/policy-command.js";
import { registerSessionsCommand } from "./commands/sessions-command.js";

function packageVersion(): string {
  // From src/cli (tsx) or dist/src/cli (built): walk up to docket's own package.json.
  for (let dir = new URL(".", import.meta.url); dir.pathname !== "/"; dir = new URL("..", dir)) {
    try {
      const pkg = JSON.parse(readFileSync(new URL("package.json", dir), "utf8")) as {
        name?: string;
        version: string;
      };
      if (pkg.name === "docket") return pkg.version;
    } catch {}
  }
  return "0.0.0";
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
  registerAuditCommand(program);
  registerSessionsCommand(program);
  registerApprovalsCommand(program);
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
    // Commands report failure through process.exitCode; keep it.
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    console.error(`docket: ${(error as Error).message}`);
    return 1;
  }
}
