import { type Command, CommanderError } from "commander";
import { loadPolicyFiles } from "../../config/load-policy-files.js";
import { connectMcpServers, type McpUpstreams } from "../../mcp/connect-mcp-servers.js";
import type { McpLogEvent } from "../../mcp/mcp-log.js";
import { acceptServer, diffServer } from "../../mcp/pin-report.js";
import { lockFileBeside } from "../../mcp/tool-pins.js";
import { maskSecrets } from "../../shared/mask-secrets.js";
import { docketProtection } from "../docket-protection.js";
import { loadCliConfig } from "../load-cli-config.js";
import { protectedSandbox } from "../runtime-sandbox.js";
import { commandFailure } from "./command-failure.js";

interface McpOptions {
  config?: string;
}

/** Connect every configured server with the lock file beside docket.yaml, run `use`, stop them. */
async function withUpstreams<T>(
  options: McpOptions,
  use: (upstreams: McpUpstreams) => T,
  log: (event: McpLogEvent) => void,
): Promise<T> {
  const cli = loadCliConfig({ config: options.config });
  const file = cli.config?.file;
  if (file === undefined || !cli.runtime.mcp) {
    commandFailure(2, "docket.mcp", "docket mcp: no docket.yaml with an mcp: section was found.");
  }
  const layers = loadPolicyFiles({ projectFile: file });
  // A sandboxed server started to pin its tools sees no more of docket than in a run.
  const settings = protectedSandbox(
    { storeUrl: cli.storeUrl, configFile: file, layers, sandbox: cli.runtime.sandbox },
    docketProtection({
      storeUrl: cli.storeUrl,
      configFile: file,
      layers,
      sections: cli.config?.sections ?? {},
      workspace: cli.workspace,
    }),
  );
  let upstreams: McpUpstreams;
  try {
    upstreams = await connectMcpServers(cli.runtime.mcp, {
      pins: lockFileBeside(file),
      log,
      sandbox: { settings, workspace: cli.runtime.workspace ?? process.cwd() },
    });
  } catch (error) {
    commandFailure(1, "docket.mcp", `docket mcp: ${maskSecrets(String((error as Error).message))}`);
  }
  try {
    return use(upstreams);
  } finally {
    await upstreams.close();
  }
}

function failed(error: unknown): never {
  if (error instanceof CommanderError) throw error;
  commandFailure(1, "docket.mcp", `docket mcp: ${(error as Error)?.message ?? String(error)}`);
}

function stderrLog(event: McpLogEvent): void {
  if (event.level === "warn" || event.level === "error") {
    process.stderr.write(`docket mcp[${event.server}]: ${maskSecrets(event.message)}\n`);
  }
}

/**
 * Register `docket mcp pin [--update SERVER]` and `docket mcp diff SERVER`: outside tools are
 * pinned in docket.lock.json beside docket.yaml. `pin` pins servers the file has never seen and
 * lists what is held; `--update SERVER` accepts that server's tools as they are now; `diff`
 * shows what changed since the pins, and what description vetting found.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerMcpCommand(program);
 * // $ docket mcp diff files && docket mcp pin --update files
 * ```
 */
export function registerMcpCommand(program: Command): void {
  const mcp = program.command("mcp").description("Pin and review outside MCP servers' tools");
  mcp
    .command("pin")
    .description("Pin servers' tools in docket.lock.json (changed and new tools are held)")
    .option("--config <file>", "docket.yaml to load")
    .option("--update <server>", "accept the server's tools as they are listed now")
    .action(async (options: McpOptions & { update?: string }) => {
      const lines = await withUpstreams(
        options,
        (upstreams) => {
          if (options.update !== undefined) return acceptServer(upstreams, options.update);
          return upstreams.standings().map(({ server, tools }) => {
            const held = tools.filter((standing) => standing.status === "held");
            return held.length === 0
              ? `${server}: ${tools.length} tool(s) pinned`
              : `${server}: ${held.length} tool(s) held (${held.map((s) => s.tool.name).join(", ")}): docket mcp diff ${server}`;
          });
        },
        stderrLog,
      ).catch(failed);
      process.stdout.write(`${lines.join("\n")}\n`);
    });
  mcp
    .command("diff")
    .description("Show how a server's tools differ from their pins")
    .argument("<server>", "the server's name in docket.yaml")
    .option("--config <file>", "docket.yaml to load")
    .action(async (server: string, options: McpOptions) => {
      const text = await withUpstreams(
        options,
        (upstreams) => diffServer(upstreams, server),
        stderrLog,
      ).catch(failed);
      process.stdout.write(text === "" ? `${server}: no differences from the pins\n` : text);
    });
}
