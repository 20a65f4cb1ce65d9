import { Command, CommanderError } from "commander";
import { createGatewayBackend } from "../mcp/create-gateway-backend.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import { buildRuntime } from "./build-runtime.js";
import { registerApprovalsCommand } from "./commands/approvals-command.js";
import { registerAuditCommand } from "./commands/audit-command.js";
import { registerChatCommand } from "./commands/chat-command.js";
import { registerDemoCommand } from "./commands/demo-command.js";
import { registerDoctorCommand } from "./commands/doctor-command.js";
import { registerGatewayCommand } from "./commands/gateway-command.js";
import { registerInitCommand } from "./commands/init-command.js";
import { registerPolicyCommand } from "./commands/policy-command.js";
import { registerRunCommands } from "./commands/run-command.js";
import { registerServeCommand } from "./commands/serve-command.js";
import { registerSessionsCommand } from "./commands/sessions-command.js";
import { packageRoot } from "./package-root.js";

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
    .version(packageRoot().version, "-v, --version")
    .showHelpAfterError()
    .exitOverride();
  registerPolicyCommand(program);
  registerAuditCommand(program);
  registerSessionsCommand(program);
  registerApprovalsCommand(program);
  registerRunCommands(program);
  registerChatCommand(program);
  registerDemoCommand(program);
  registerDoctorCommand(program);
  registerInitCommand(program);
  registerServeCommand(program);
  registerGatewayCommand(program, {
    buildCheckpoint: async ({ config }) => {
      const runtime = await buildRuntime({
        config,
        terminal: false,
        connectMcp: false,
        approvalMode: "wait",
      });
      const maxSessions = runtime.cli.runtime.gateway.maxSessions;
      const backend = await createGatewayBackend({
        tools: runtime.tools,
        ...(runtime.cli.runtime.mcp ? { mcp: runtime.cli.runtime.mcp } : {}),
        sandbox: { settings: runtime.sandbox, workspace: runtime.workspace },
        policy: runtime.policy,
        store: runtime.store,
        principal: runtime.cli.runtime.principal,
        ...(runtime.approvals ? { approvals: runtime.approvals } : {}),
        onClose: () => runtime.close(),
      });
      return maxSessions === undefined ? backend : { ...backend, maxSessions };
    },
  });
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
    console.error(`docket: ${maskSecrets(String((error as Error)?.message ?? error))}`);
    return 1;
  }
}
