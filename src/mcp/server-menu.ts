import type { Tool } from "../tool/tool.js";
import { defineUpstreamTool } from "./define-upstream-tool.js";
import type { ListedTools } from "./list-all-tools.js";
import type { McpServerConfig } from "./mcp-config.js";
import type { McpLogger } from "./mcp-log.js";
import type { UpstreamConnection } from "./upstream-connection.js";

/**
 * One server's part of the menu. Tools whose listing did not change keep their menu entry, so a
 * `list_changed` does not recompile every schema, and the menu's identity changes only when a
 * tool really changed.
 *
 * @example
 * ```ts
 * const menu = new ServerMenu(server, connection, log);
 * if (menu.update(await connection.listTools())) onChanged();
 * menu.tools; // [everything__echo, …]
 * ```
 */
export class ServerMenu {
  readonly #server: McpServerConfig;
  readonly #connection: Pick<UpstreamConnection, "use">;
  readonly #log: McpLogger;
  /** By upstream tool name: the listing it was built from, and the entry (or skip reason). */
  #entries = new Map<string, { listing: string; tool: Tool | undefined }>();
  #tools: readonly Tool[] = [];
  #warnedConfig = false;

  constructor(
    server: McpServerConfig,
    connection: Pick<UpstreamConnection, "use">,
    log: McpLogger,
  ) {
    this.#server = server;
    this.#connection = connection;
    this.#log = log;
  }

  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** Apply a fresh listing; true when the menu changed. */
  update(listed: ListedTools): boolean {
    const server = this.#server.name;
    for (const problem of listed.problems) {
      this.#log({
        level: "warn",
        server,
        ...(problem.name === undefined ? {} : { tool: problem.name }),
        message: `${problem.name === undefined ? "a tool" : `tool "${problem.name}"`} skipped: ${problem.message}`,
      });
    }
    const next = new Map<string, { listing: string; tool: Tool | undefined }>();
    let changed = listed.tools.length !== this.#entries.size;
    for (const tool of listed.tools) {
      const listing = JSON.stringify(tool);
      const previous = this.#entries.get(tool.name);
      if (previous?.listing === listing) {
        next.set(tool.name, previous);
        continue;
      }
      changed = true;
      const outcome = defineUpstreamTool(this.#server, tool, this.#connection);
      if (outcome.status === "skipped") {
        this.#log({
          level: "warn",
          server,
          tool: tool.name,
          message: `tool "${tool.name}" is unavailable: ${outcome.reason}`,
        });
      }
      next.set(tool.name, {
        listing,
        tool: outcome.status === "defined" ? outcome.tool : undefined,
      });
    }
    if (!changed) changed = [...this.#entries.keys()].some((name) => !next.has(name));
    this.#entries = next;
    if (changed) {
      this.#tools = Object.freeze(
        [...next.values()].flatMap((entry) => (entry.tool ? [entry.tool] : [])),
      );
    }
    this.#warnUnknownConfig(next);
    return changed;
  }

  /** Config that names a tool the server does not have is most likely a typo: say so once. */
  #warnUnknownConfig(entries: ReadonlyMap<string, unknown>): void {
    if (this.#warnedConfig) return;
    this.#warnedConfig = true;
    const named = [
      ...(typeof this.#server.writes === "object" ? Object.keys(this.#server.writes) : []),
      ...Object.keys(this.#server.policyArgs),
    ];
    for (const tool of new Set(named)) {
      if (!entries.has(tool)) {
        this.#log({
          level: "warn",
          server: this.#server.name,
          tool,
          message: `the config names tool "${tool}", which the server does not list`,
        });
      }
    }
  }
}
