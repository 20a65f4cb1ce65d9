import { fileURLToPath } from "node:url";
import type { HookRunner } from "../hook/hook-guard.js";
import type { CommandLineHooks } from "./cli-bundle.js";
import { commandWord } from "./command-word.js";
import { type CachedScript, loadCachedScript } from "./load-cached-script.js";

type CliBundle = typeof import("./cli-bundle.js");

// A command word as docket's commands are spelled: anything else shares one entry.
const COMMAND_WORD = /^[a-z][a-z-]{0,31}$/;

/**
 * The commands whose subcommands do different work (`hook exec` launches a host's command in the
 * sandbox, `hook install` edits settings): an entry each, named by both words. cli-loader.test.ts
 * holds it to the commands registered with subcommands.
 */
export const COMMANDS_WITH_SUBCOMMANDS: ReadonlySet<string> = new Set([
  "approvals",
  "audit",
  "hook",
  "mcp",
  "policy",
  "sandbox",
  "sessions",
]);

/**
 * The name of the code cache entry a command line uses: one per command (and subcommand, for
 * the commands that have them), since an entry holds what its first process compiled (a `run`
 * and an `audit verify` compile different functions), and Node's version and the architecture,
 * so alternating Nodes do not evict each other's.
 *
 * @example
 * ```ts
 * cacheEntryName(["run", "Hi."]); // "cli-run-node24.21.0-x64"
 * cacheEntryName(["hook", "exec", "--", "ls"]); // "cli-hook-exec-node24.21.0-x64"
 * ```
 */
export function cacheEntryName(argv: readonly string[]): string {
  const word = commandWord(argv);
  const command = word !== undefined && COMMAND_WORD.test(word) ? word : "docket";
  const rest = argv.slice(argv.indexOf(command) + 1);
  const sub = COMMANDS_WITH_SUBCOMMANDS.has(command) ? commandWord(rest) : undefined;
  const name = sub !== undefined && COMMAND_WORD.test(sub) ? `${command}-${sub}` : command;
  return `cli-${name}-node${process.versions.node}-${process.arch}`;
}

/**
 * The name of a command's fuller entry: one written after a process of the command ran a tool
 * call, and read before the command's plain one. An agent's runs call tools; an entry made by a
 * run whose model only answered would leave every later run to compile the tool call's path
 * again (docs/adr/0092-a-fuller-code-cache.md).
 *
 * @example
 * ```ts
 * fullerEntryName("cli-run-node24.21.0-x64"); // "cli-run-node24.21.0-x64-tools"
 * ```
 */
export function fullerEntryName(name: string): string {
  return `${name}-tools`;
}

/** The commands that run an agent's loop, whose runs call tools: they keep a fuller entry. */
export const AGENT_COMMANDS: ReadonlySet<string> = new Set(["run", "chat", "resume", "demo"]);

function loadCli(name: string, agent = false): CachedScript<CliBundle> {
  return loadCachedScript<CliBundle>(fileURLToPath(new URL("./cli.cjs", import.meta.url)), {
    name,
    ...(agent ? { fullerName: fullerEntryName(name) } : {}),
    // The bundle's import(name) of an installed package (a model provider, the OpenTelemetry
    // SDK, PostgreSQL's driver): resolved from here, the folder the bundle is in.
    importModule: (specifier) => import(specifier),
  });
}

/**
 * The built CLI's `runCommandLine` (scripts/bundle.mjs makes this module
 * dist/src/cli/bin/cli-main.js, which main.js imports in place of cli-bundle.ts): every command
 * but a hook call and the plain `policy check`, run from the CLI's CommonJS bundle beside it,
 * bin/cli.cjs, through V8's code cache (load-cached-script.ts), one entry per command
 * (cacheEntryName). The entry is written after the command, so that what it compiled lazily is
 * in it too, and only after a command's action ran and succeeded: `--help`, a mistyped command
 * or a failed run leaves none, so the first entry of a command is one its real work made. The
 * first such process to run a tool call writes the command's fuller entry (fullerEntryName),
 * which its later processes read instead.
 *
 * @example
 * ```ts
 * process.exitCode = await runCommandLine(process.argv.slice(2));
 * ```
 */
export async function runCommandLine(
  argv: readonly string[],
  hooks: CommandLineHooks = {},
): Promise<number> {
  const word = commandWord(argv);
  const bundle = loadCli(cacheEntryName(argv), word !== undefined && AGENT_COMMANDS.has(word));
  let acted = false;
  const code = await bundle.exports.runCommandLine(argv, {
    beforeV8Flags: () => {
      bundle.snapshot();
      hooks.beforeV8Flags?.();
    },
    onAction: () => {
      acted = true;
      hooks.onAction?.();
    },
  });
  if (acted && code === 0) bundle.save({ fuller: bundle.exports.ranToolCalls() });
  return code;
}

/**
 * The built CLI's in-process hook runner (`docket hook HOST`, a host registered without the
 * daemon): the same script and cache, one entry per host, written once a call was judged. The
 * guard in main.ts answers deny if the script fails to load or the runner throws.
 *
 * @example
 * ```ts
 * const input = { host: "claude-code", text: "{}", config: undefined, store: undefined };
 * const reply = await hookRunner({ ...input, onDeadline: () => {} });
 * ```
 */
export const hookRunner: HookRunner = async (input) => {
  const bundle = loadCli(cacheEntryName(["hook", input.host]));
  const reply = await bundle.exports.hookRunner(input, { beforeV8Flags: bundle.snapshot });
  bundle.save();
  return reply;
};
