import type { Command } from "commander";
import { builtinTools } from "../../builtin/builtin-tools.js";
import { connectMcpServers } from "../../mcp/connect-mcp-servers.js";
import { lockFileBeside } from "../../mcp/tool-pins.js";
import type { LintFinding } from "../../tool/lint-tool.js";
import type { Tool } from "../../tool/tool.js";
import { lintTools } from "../../tool/tool-lint-warnings.js";
import { surfaceCost } from "../../tool/tool-surface.js";
import { loadCliConfig } from "../load-cli-config.js";
import { CONFIG_FLAG_HELP } from "./command-flags.js";

interface ToolsOptions {
  readonly config?: string;
  readonly lint?: boolean;
  readonly json?: boolean;
  readonly mcp: boolean;
}

/** The tools `docket run` would offer: the built-ins, then each `mcp:` server's, as connected. */
async function withMenu<T>(
  options: ToolsOptions,
  fn: (tools: readonly Tool[]) => T | Promise<T>,
): Promise<T> {
  const cli = loadCliConfig({ config: options.config });
  const builtins = builtinTools({ workspace: cli.workspace });
  const mcp = cli.runtime.mcp;
  const upstreams =
    options.mcp && mcp && Object.keys(mcp.servers ?? {}).length > 0
      ? await connectMcpServers(mcp, {
          ...(cli.config?.file === undefined ? {} : { pins: lockFileBeside(cli.config.file) }),
        })
      : undefined;
  try {
    return await fn([...builtins, ...(upstreams?.tools() ?? [])]);
  } finally {
    await upstreams?.close();
  }
}

function printMenu(tools: readonly Tool[], json: boolean): void {
  const cost = surfaceCost(tools);
  if (json) {
    tools.forEach((tool, i) => {
      const entry = cost.tools[i];
      process.stdout.write(
        `${JSON.stringify({
          name: tool.name,
          description: tool.description,
          inputSchema: tool.inputSchema,
          bytes: entry?.bytes,
          tokens: entry?.tokens,
        })}\n`,
      );
    });
    return;
  }
  tools.forEach((tool, i) => {
    process.stdout.write(`${tool.name}  (~${cost.tools[i]?.tokens ?? 0} tokens)\n`);
    process.stdout.write(`  ${tool.description.split("\n").join("\n  ")}\n`);
    const schema = JSON.stringify(tool.inputSchema, null, 2).split("\n").join("\n    ");
    process.stdout.write(`    ${schema}\n\n`);
  });
  process.stdout.write(
    `${tools.length} tools, ~${cost.menuTokens} tokens (${cost.menuBytes} bytes) sent with every model request; estimate: 4 bytes per token.\n`,
  );
}

function printFindings(findings: readonly LintFinding[], json: boolean): void {
  if (json) {
    for (const finding of findings) process.stdout.write(`${JSON.stringify(finding)}\n`);
    return;
  }
  if (findings.length === 0) {
    process.stdout.write("No findings.\n");
    return;
  }
  for (const f of findings) {
    process.stdout.write(`${f.tool}${f.path ? ` ${f.path}` : ""}: ${f.message} (${f.code})\n`);
  }
}

/**
 * Add `docket tools`: the menu as the model sees it (per tool: description, schema, estimated
 * tokens), MCP tools included; `--lint` reports what makes it worse and exits 1 when it finds
 * anything.
 *
 * @example
 * ```ts
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerToolsCommand(program);
 * await program.parseAsync(["tools", "--lint"], { from: "user" });
 * ```
 */
export function registerToolsCommand(program: Command): void {
  program
    .command("tools")
    .description(
      "Show the tool menu as the model sees it, with its cost in tokens; --lint checks it.",
    )
    .option(
      "--lint",
      "report missing descriptions, prose enums, hidden refinements (exit 1 on any)",
    )
    .option("--json", "one JSON object per tool (or per finding with --lint), one per line")
    .option("--no-mcp", "leave the mcp: servers out (do not start them)")
    .option("--config <file>", CONFIG_FLAG_HELP)
    .action(async (options: ToolsOptions) => {
      await withMenu(options, (tools) => {
        if (!options.lint) return printMenu(tools, Boolean(options.json));
        const findings = lintTools(tools);
        printFindings(findings, Boolean(options.json));
        if (findings.length > 0) process.exitCode = 1;
      });
    });
}
