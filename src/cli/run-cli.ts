import { Command, CommanderError } from "commander";
import { createGatewayBackend } from "../mcp/create-gateway-backend.js";
import { lockFileBeside } from "../mcp/tool-pins.js";
import { disableColour } from "../shared/colour-enabled.js";
import { maskSecrets } from "../shared/mask-secrets.js";
import { buildRuntime } from "./build-runtime.js";
import { registerApprovalsCommand } from "./commands/approvals-command.js";
import { registerAuditCommand } from "./commands/audit-command.js";
import { registerChatCommand } from "./commands/chat-command.js";
import { registerConfigCommand } from "./commands/config-command.js";
import { registerDemoCommand } from "./commands/demo-command.js";
import { registerDoctorCommand } from "./commands/doctor-command.js";
import { registerGatewayCommand } from "./commands/gateway-command.js";
import { registerInitCommand } from "./commands/init-command.js";
import { registerMcpCommand } from "./commands/mcp-command.js";
import { registerPolicyCommand } from "./commands/policy-command.js";
import { registerRunCommands } from "./commands/run-command.js";
import { registerServeCommand } from "./commands/serve-command.js";
import { registerSessionsCommand } from "./commands/sessions-command.js";
import { registerStatsCommand } from "./commands/stats-command.js";
import { registerToolsCommand } from "./commands/tools-command.js";
import { isExpectedError, writeCrashLog } from "./crash-log.js";
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
    .exitOverride()
    .option("--no-color", "plain text: no colour on the terminal (as NO_COLOR=1 does)")
    .hook("preAction", (command) => {
      if (command.opts().color === false) disableColour();
    });
  registerPolicyCommand(program);
  registerAuditCommand(program);
  registerSessionsCommand(program);
  registerApprovalsCommand(program);
  registerRunCommands(program);
  registerChatCommand(program);
  registerDemoCommand(program);
  registerDoctorCommand(program);
  registerConfigCommand(program);
  registerInitCommand(program);
  registerMcpCommand(program);
  registerServeCommand(program);
  registerStatsCommand(program);
  registerToolsCommand(program);
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
        ...(runtime.cli.config?.file === undefined
          ? {}
          : { pins: lockFileBeside(runtime.cli.config.file) }),
        policy: runtime.policy,
        taint: runtime.cli.runtime.taint,
        store: runtime.store,
        principal: runtime.cli.runtime.principal,
        ...(runtime.approvals ? { approvals: runtime.approvals } : {}),
        ...(runtime.telemetry ? { telemetry: runtime.telemetry } : {}),
        onClose: () => runtime.close(),
      });
      const principal = runtime.cli.runtime.principal;
      return {
        ...backend,
        ...(maxSessions === undefined ? {} : { maxSessions }),
        // Each client's session is a session in the store, listed and shown like a run's.
        openSession: async (id: string, transport: "stdio" | "http") => {
          await runtime.store.createSession({
            id,
            principal,
            configHash: runtime.configHash,
            title: `docket gateway (${transport})`,
            metadata: { gateway: transport },
          });
        },
      };
    },
  });
  return program;
}

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
  const program = createProgram();
  try {
    await program.parseAsync([...argv], { from: "user" });
    // Commands report failure through process.exitCode; keep it.
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    return reportError(error, argv);
  }
}
