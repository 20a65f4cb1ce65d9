import { type HostName, hostAdapter } from "./host-registry.js";
import type { HostToolMapping, HostToolTable } from "./host-tool-mapping.js";

/**
 * docket's view of a host tool: docket.yaml's entry (`hooks.tools.HOST`) first, then the host's
 * table, then an MCP tool in the host's naming (`mcp__server__tool` for Claude Code becomes
 * `server__tool`: a write unless configured, its results open-world unless the server is
 * trusted). Undefined: docket does not know the tool, and what it cannot see it does not allow.
 *
 * @example
 * ```ts
 * mapHostTool("claude-code", "mcp__github__create_issue"); // { tool: "github__create_issue", writes: true, policyArgs: {}, openWorld: true }
 * mapHostTool("codex", "some_new_tool"); // undefined
 * ```
 */
export function mapHostTool(
  host: HostName,
  name: string,
  configured: HostToolTable = {},
  trusted: (server: string) => boolean = () => false,
): HostToolMapping | undefined {
  const own = Object.hasOwn(configured, name) ? configured[name] : undefined;
  if (own) return own;
  const adapter = hostAdapter(host);
  const known = Object.hasOwn(adapter.tools, name) ? adapter.tools[name] : undefined;
  if (known) return known;
  const mcp = adapter.mcpToolName(name);
  if (mcp === undefined) return undefined;
  const docketName = `${mcp.server}__${mcp.tool}`;
  const openWorld = !trusted(mcp.server);
  const again = Object.hasOwn(configured, docketName) ? configured[docketName] : undefined;
  return again
    ? { openWorld, ...again }
    : { tool: docketName, writes: true, policyArgs: {}, openWorld };
}

/**
 * Why a host tool docket has no mapping for is denied, and how to map it.
 *
 * @example
 * ```ts
 * unmappedToolReason("codex", "some_new_tool");
 * // 'docket does not know Codex CLI\'s tool "some_new_tool", so it cannot judge it: map it in docket.yaml under hooks.tools.codex …'
 * ```
 */
export function unmappedToolReason(host: HostName, name: string): string {
  const shown = JSON.stringify(name.replace(/[\p{Cc}\p{Cf}]/gu, "?").slice(0, 100));
  return `docket does not know ${hostAdapter(host).title}'s tool ${shown}, so it cannot judge it: map it in docket.yaml under hooks.tools.${host} (tool, writes, and the key of its command, path or url; see docs/hooks.md)`;
}
