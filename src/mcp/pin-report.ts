import { DocketError } from "../errors/docket-error.js";
import type { McpUpstreams } from "./connect-mcp-servers.js";
import { matchesPin, pinOf } from "./tool-pins.js";

function serverOf(upstreams: McpUpstreams, server: string) {
  const found = upstreams.standings().find((entry) => entry.server === server);
  if (found === undefined) {
    const names = upstreams.standings().map((entry) => entry.server);
    throw new DocketError(
      "unknown_server",
      `There is no MCP server ${JSON.stringify(server)} in the config${names.length > 0 ? ` (there are: ${names.join(", ")})` : ""}.`,
    );
  }
  return found;
}

function pinsOf(upstreams: McpUpstreams) {
  if (upstreams.pins === undefined) {
    throw new DocketError("no_lock_file", "These servers were connected without a lock file.");
  }
  return upstreams.pins;
}

/**
 * Accept what a server lists now: its pins become exactly its current tools (changed ones
 * accepted, new ones added, gone ones dropped). Returns one line per change, for the operator.
 *
 * @example
 * ```ts
 * declare const upstreams: import("./connect-mcp-servers.js").McpUpstreams;
 * acceptServer(upstreams, "files"); // ["files: pinned 3 tool(s) in /repo/docket.lock.json (1 changed, 1 new)"]
 * ```
 */
export function acceptServer(upstreams: McpUpstreams, server: string): string[] {
  const book = pinsOf(upstreams);
  const { tools } = serverOf(upstreams, server);
  const changed = tools.filter((standing) => standing.pin === "changed").length;
  const added = tools.filter((standing) => standing.pin === "new").length;
  book.pinServer(
    server,
    tools.map((standing) => standing.tool),
  );
  return [
    `${server}: pinned ${tools.length} tool(s) in ${book.file} (${changed} changed, ${added} new); commit it`,
  ];
}

/**
 * Show how a server's tools differ from their pins, and what description vetting found: the old
 * and new description and input schema of each changed tool, new and vanished tools. Empty text
 * means nothing differs.
 *
 * @example
 * ```ts
 * declare const upstreams: import("./connect-mcp-servers.js").McpUpstreams;
 * process.stdout.write(diffServer(upstreams, "files"));
 * ```
 */
export function diffServer(upstreams: McpUpstreams, server: string): string {
  const book = pinsOf(upstreams);
  const { tools } = serverOf(upstreams, server);
  const pinned = Object.hasOwn(book.lock.servers, server) ? book.lock.servers[server]?.tools : {};
  const lines: string[] = [];
  const listed = new Set<string>();
  for (const standing of tools) {
    const { tool } = standing;
    listed.add(tool.name);
    const now = pinOf(tool);
    const before = pinned && Object.hasOwn(pinned, tool.name) ? pinned[tool.name] : undefined;
    if (before === undefined) {
      lines.push(`+ ${tool.name} (new, not pinned)`);
      lines.push(`    description: ${JSON.stringify(now.description)}`);
      lines.push(`    input schema: ${JSON.stringify(now.inputSchema)}`);
    } else if (!matchesPin(before, tool)) {
      lines.push(`~ ${tool.name} (changed since pinned)`);
      if (before.description !== now.description) {
        lines.push(`  - description: ${JSON.stringify(before.description)}`);
        lines.push(`  + description: ${JSON.stringify(now.description)}`);
      }
      const schemaBefore = JSON.stringify(before.inputSchema);
      const schemaNow = JSON.stringify(now.inputSchema);
      if (schemaBefore !== schemaNow) {
        lines.push(`  - input schema: ${schemaBefore}`);
        lines.push(`  + input schema: ${schemaNow}`);
      }
      const annotationsBefore = JSON.stringify(before.annotations ?? null);
      const annotationsNow = JSON.stringify(now.annotations ?? null);
      if (annotationsBefore !== annotationsNow) {
        lines.push(`  - annotations: ${annotationsBefore}`);
        lines.push(`  + annotations: ${annotationsNow}`);
      }
    }
    for (const finding of standing.findings) {
      lines.push(`! ${tool.name}: the description looks like instructions: ${finding.message}`);
    }
    if (standing.findings.length > 0 && before !== undefined && matchesPin(before, tool)) {
      lines.push(`    description: ${JSON.stringify(now.description)}`);
    }
  }
  for (const name of Object.keys(pinned ?? {})) {
    if (!listed.has(name)) lines.push(`- ${name} (pinned, no longer listed)`);
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}
