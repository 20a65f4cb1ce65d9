import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { BUILTIN_LISTS } from "../builtin/builtin-lists.js";
import { hasKeyWithBackslash } from "../shared/parse-json.js";
import type { Tool } from "../tool/tool.js";
import { defineUpstreamTool } from "./define-upstream-tool.js";
import type { ListedTools } from "./list-all-tools.js";
import type { McpServerConfig } from "./mcp-config.js";
import type { McpLogger } from "./mcp-log.js";
import type { PinBook } from "./pin-book.js";
import type { UpstreamConnection } from "./upstream-connection.js";
import { type DescriptionFinding, stripDescription, vetDescription } from "./vet-description.js";

/** Names an outside description has no business mentioning: docket's own tools. */
const LOCAL_TOOLS = BUILTIN_LISTS.names;

/** How one listed tool stands: offered, or held and why; with what vetting found. */
export interface ToolStanding {
  readonly tool: McpTool;
  readonly status: "offered" | "held" | "refused" | "skipped";
  /** For held tools: `changed` or `new` against the lock file. */
  readonly pin?: "changed" | "new";
  readonly reason?: string;
  readonly findings: readonly DescriptionFinding[];
}

/**
 * One server's part of the menu. Tools whose listing did not change keep their menu entry, so a
 * `list_changed` does not recompile every schema, and the menu's identity changes only when a
 * tool really changed.
 *
 * @example
 * ```ts
 * declare const server: import("./mcp-config.js").McpServerConfig;
 * declare const connection: import("./upstream-connection.js").UpstreamConnection;
 * declare const log: import("./mcp-log.js").McpLogger;
 * declare const onChanged: () => void; // tells the checkpoint to refresh
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
  readonly #pins: PinBook | undefined;
  #standings: readonly ToolStanding[] = [];

  constructor(
    server: McpServerConfig,
    connection: Pick<UpstreamConnection, "use">,
    log: McpLogger,
    pins?: PinBook,
  ) {
    this.#server = server;
    this.#connection = connection;
    this.#log = log;
    this.#pins = pins;
  }

  get tools(): readonly Tool[] {
    return this.#tools;
  }

  /** Every tool of the latest listing and how it stands (for `docket mcp diff`). */
  get standings(): readonly ToolStanding[] {
    return this.#standings;
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
    this.#pinFirstSight(listed.tools);
    const next = new Map<string, { listing: string; tool: Tool | undefined }>();
    const standings: ToolStanding[] = [];
    const names = [...LOCAL_TOOLS, ...listed.tools.map((tool) => tool.name)];
    let changed = listed.tools.length !== this.#entries.size;
    for (const tool of listed.tools) {
      const listing = JSON.stringify(tool);
      const previous = this.#entries.get(tool.name);
      const standing = this.#stand(
        tool,
        names.filter((name) => name !== tool.name),
      );
      standings.push(standing.standing);
      if (previous?.listing === listing && previous.tool === standing.tool) {
        next.set(tool.name, previous);
        continue;
      }
      if (previous?.listing !== listing) changed = true;
      next.set(tool.name, { listing, tool: standing.tool });
      if (previous?.tool !== standing.tool) changed = true;
    }
    this.#standings = standings;
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

  /** A server the lock file has never seen is pinned as it lists now (trust on first use). */
  #pinFirstSight(tools: readonly McpTool[]): void {
    const book = this.#pins;
    const first = tools[0];
    if (book === undefined || first === undefined) return;
    if (book.status(this.#server.name, first).status !== "unpinned_server") return;
    try {
      book.pinServer(this.#server.name, tools);
    } catch (error) {
      // Never pinned before, so nothing was accepted that this could hide; say so and go on.
      this.#log({
        level: "warn",
        server: this.#server.name,
        message: `could not pin its tools in ${book.file} (${(error as Error).message}); they are offered unpinned`,
      });
      return;
    }
    this.#log({
      level: "warn",
      server: this.#server.name,
      message: `pinned ${tools.length} tool(s) in ${book.file} on first sight; commit it`,
    });
  }

  /** Pin check, then description vetting, then the menu entry (reused when nothing changed). */
  #stand(
    tool: McpTool,
    others: readonly string[],
  ): { standing: ToolStanding; tool: Tool | undefined } {
    const server = this.#server.name;
    if (this.#server.transport === "http" && hasKeyWithBackslash(tool)) {
      // The MCP SDK read this listing with JSON.parse, which can misread such a key (ADR 0083):
      // a schema docket cannot read exactly is not one it can check arguments against.
      const reason =
        "its definition has a key holding a backslash, which docket cannot read exactly from a Streamable HTTP server";
      this.#log({
        level: "warn",
        server,
        tool: tool.name,
        message: `tool "${tool.name}": ${reason}; not offered`,
      });
      return { standing: { tool, status: "refused", reason, findings: [] }, tool: undefined };
    }
    const previous = this.#entries.get(tool.name);
    const findings = vetDescription(tool.description ?? "", others, parameterTexts(tool));
    // A tool that asks for a file's or a secret's content is an outward channel, whatever else.
    const sends = findings.some((finding) => finding.kind === "asks_private_data");
    const pin = this.#pins?.status(server, tool);
    const held =
      pin?.status === "changed" || (pin?.status === "new" && this.#server.newTools === "hold")
        ? pin.status
        : undefined;
    const warn = (message: string) =>
      this.#log({ level: "warn", server, tool: tool.name, message });
    if (held !== undefined) {
      const what =
        held === "changed" ? "changed since it was pinned" : "is new since the server was pinned";
      warn(
        `tool "${tool.name}" ${what}, so it is not offered until accepted: docket mcp diff ${server}, then docket mcp pin --update ${server}`,
      );
      return {
        standing: { tool, status: "held", pin: held, reason: what, findings },
        tool: undefined,
      };
    }
    const mode = this.#server.descriptions;
    if (findings.length > 0) {
      const text = JSON.stringify((tool.description ?? "").slice(0, 300));
      const action =
        mode === "refuse"
          ? "not offered"
          : mode === "strip"
            ? "description stripped"
            : "offered as it is";
      warn(
        `tool "${tool.name}": the description looks like instructions to the model (${findings.map((f) => f.message).join("; ")}); ${action}: ${text}`,
      );
      if (mode === "refuse") {
        const reason = "its description looks like instructions to the model";
        return { standing: { tool, status: "refused", reason, findings }, tool: undefined };
      }
    }
    if (previous !== undefined && previous.listing === JSON.stringify(tool) && previous.tool) {
      return { standing: { tool, status: "offered", findings }, tool: previous.tool };
    }
    const shown =
      findings.length > 0 && mode === "strip"
        ? { ...tool, description: stripDescription(tool.description ?? "", server, tool.name) }
        : tool;
    const outcome = defineUpstreamTool(this.#server, shown, this.#connection, { sends });
    if (outcome.status === "skipped") {
      warn(`tool "${tool.name}" is unavailable: ${outcome.reason}`);
      return {
        standing: { tool, status: "skipped", reason: outcome.reason, findings },
        tool: undefined,
      };
    }
    return { standing: { tool, status: "offered", findings }, tool: outcome.tool };
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

/** The descriptions of a listed tool's parameters (top-level properties), capped in number. */
function parameterTexts(tool: McpTool): string[] {
  const properties = (tool.inputSchema as { properties?: unknown }).properties;
  if (typeof properties !== "object" || properties === null) return [];
  return Object.values(properties)
    .slice(0, 100)
    .map((schema) => (schema as { description?: unknown } | null)?.description)
    .filter((text): text is string => typeof text === "string");
}
