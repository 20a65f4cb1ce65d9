import type { Command } from "commander";

/** One top-level command (or a few sharing a module): its names and how to register it. */
interface CommandEntry {
  /** The top-level names the module registers, in the order `docket --help` lists them. */
  readonly names: readonly string[];
  /** Imports the command's module (and only then what it needs): its register function. */
  readonly load: () => Promise<(program: Command) => void>;
}

// Imported when chosen: `docket policy check` must not pay for the AI SDK providers, the MCP
// SDK, Hono or a database driver that only other commands use (docs/cli.md, "Start-up").
const COMMANDS: readonly CommandEntry[] = [
  {
    names: ["policy"],
    load: async () => (await import("./commands/policy-command.js")).registerPolicyCommand,
  },
  {
    names: ["audit"],
    load: async () => (await import("./commands/audit-command.js")).registerAuditCommand,
  },
  {
    names: ["sessions"],
    load: async () => (await import("./commands/sessions-command.js")).registerSessionsCommand,
  },
  {
    names: ["approvals"],
    load: async () => (await import("./commands/approvals-command.js")).registerApprovalsCommand,
  },
  {
    names: ["run", "resume"],
    load: async () => (await import("./commands/run-command.js")).registerRunCommands,
  },
  {
    names: ["chat"],
    load: async () => (await import("./commands/chat-command.js")).registerChatCommand,
  },
  {
    names: ["demo"],
    load: async () => (await import("./commands/demo-command.js")).registerDemoCommand,
  },
  {
    names: ["doctor"],
    load: async () => (await import("./commands/doctor-command.js")).registerDoctorCommand,
  },
  {
    names: ["config"],
    load: async () => (await import("./commands/config-command.js")).registerConfigCommand,
  },
  {
    names: ["init"],
    load: async () => (await import("./commands/init-command.js")).registerInitCommand,
  },
  {
    names: ["mcp"],
    load: async () => (await import("./commands/mcp-command.js")).registerMcpCommand,
  },
  {
    names: ["serve"],
    load: async () => (await import("./commands/serve-command.js")).registerServeCommand,
  },
  {
    names: ["stats"],
    load: async () => (await import("./commands/stats-command.js")).registerStatsCommand,
  },
  {
    names: ["tools"],
    load: async () => (await import("./commands/tools-command.js")).registerToolsCommand,
  },
  {
    names: ["hook"],
    load: async () => (await import("./commands/hook-command.js")).registerHookCommand,
  },
  {
    names: ["token"],
    load: async () => (await import("./commands/token-command.js")).registerTokenCommand,
  },
  {
    names: ["gateway"],
    load: async () => {
      const [{ registerGatewayCommand }, { buildGatewayCheckpoint }] = await Promise.all([
        import("./commands/gateway-command.js"),
        import("./gateway-checkpoint.js"),
      ]);
      return (program) => {
        registerGatewayCommand(program, { buildCheckpoint: buildGatewayCheckpoint });
      };
    },
  },
];

/**
 * The command the arguments name: the first word that is not an option, since docket's own
 * options (`--no-color`, `--version`, `--help`) take no value. Undefined when there is none.
 */
function chosenName(argv: readonly string[]): string | undefined {
  for (const arg of argv) {
    if (arg === "--") return undefined;
    if (!arg.startsWith("-")) return arg;
  }
  return undefined;
}

/**
 * Register on `program` the command `argv` chooses, and only it; every command when the
 * arguments name none or one docket does not know (`docket --help`, `docket help run`, a typo
 * that wants "did you mean"), so help and errors read as they always did.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * await registerCommands(program, ["policy", "check", "run_command", '{"command":"ls"}']);
 * await program.parseAsync(["policy", "check", "run_command", '{"command":"ls"}'], { from: "user" });
 * ```
 */
export async function registerCommands(
  program: Command,
  argv: readonly string[] | undefined = undefined,
): Promise<void> {
  const name = argv === undefined ? undefined : chosenName(argv);
  const version = argv?.some((arg) => arg === "-v" || arg === "--version");
  const help = argv?.some((arg) => arg === "-h" || arg === "--help");
  // `docket --version` prints and exits before any command would run.
  if (name === undefined && version && !help) return;
  const chosen = COMMANDS.find((entry) => name !== undefined && entry.names.includes(name));
  const registers = await Promise.all((chosen ? [chosen] : COMMANDS).map((entry) => entry.load()));
  // In the table's order: `docket --help` lists them as registered.
  for (const register of registers) register(program);
}
