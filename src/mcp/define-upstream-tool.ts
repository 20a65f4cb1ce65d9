import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { defineTool } from "../tool/define-tool.js";
import type { JsonSchema } from "../tool/input-schema.js";
import type { PolicyArgs, Tool } from "../tool/tool.js";
import type { McpServerConfig } from "./mcp-config.js";
import { shapeCallResult } from "./shape-call-result.js";
import type { UpstreamConnection } from "./upstream-connection.js";
import { upstreamToolHandler } from "./upstream-tool.handler.js";

const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_DESCRIPTION = 4096;
/** The checkpoint's deadline sits a little past the SDK's, so the SDK's clearer words win. */
const DEADLINE_GRACE_MS = 5_000;

/** A tool the server listed, turned into a menu entry, or the reason it cannot be one. */
export type UpstreamToolOutcome =
  | { readonly status: "defined"; readonly tool: Tool }
  | { readonly status: "skipped"; readonly reason: string };

/**
 * Whether an upstream tool counts as a write. Annotations are hints from a server that may not
 * be trusted: only a trusted server's `readOnlyHint: true` makes a read. The operator's
 * `writes` setting (for the server or the tool) overrides both.
 *
 * @example
 * ```ts
 * upstreamWrites({ trusted: false, writes: undefined }, { name: "echo", annotations: { readOnlyHint: true } }); // true
 * ```
 */
export function upstreamWrites(
  server: Pick<McpServerConfig, "trusted" | "writes">,
  tool: Pick<McpTool, "name" | "annotations">,
): boolean {
  if (typeof server.writes === "boolean") return server.writes;
  const override =
    server.writes === undefined
      ? undefined
      : Object.hasOwn(server.writes, tool.name)
        ? server.writes[tool.name]
        : undefined;
  if (override !== undefined) return override;
  return !(server.trusted && tool.annotations?.readOnlyHint === true);
}

/**
 * Whether an upstream tool's results count as open-world (text from outside, labelled as data,
 * tainting the run). A server not marked `trusted` is always open-world, whatever it claims; a
 * trusted server's tools are not, unless the tool itself says `openWorldHint: true`.
 *
 * @example
 * ```ts
 * upstreamOpenWorld({ trusted: false }, { annotations: { openWorldHint: false } }); // true
 * upstreamOpenWorld({ trusted: true }, { annotations: { openWorldHint: true } }); // true
 * upstreamOpenWorld({ trusted: true }, {}); // false
 * ```
 */
export function upstreamOpenWorld(
  server: Pick<McpServerConfig, "trusted">,
  tool: Pick<McpTool, "annotations">,
): boolean {
  return !server.trusted || tool.annotations?.openWorldHint === true;
}

function describe(server: string, tool: McpTool): string {
  const text = tool.description?.trim() || tool.title?.trim() || tool.annotations?.title?.trim();
  const description = text || `The tool ${tool.name} of the MCP server ${server}.`;
  return description.length > MAX_DESCRIPTION
    ? `${description.slice(0, MAX_DESCRIPTION)}…`
    : description;
}

/**
 * Turn a tool an upstream server listed into a docket tool named `SERVER__TOOL`, whose handler
 * (run only by the checkpoint) calls the server. A name that is not representable, a schema
 * that does not compile or a tool that needs task-based execution is skipped with a reason.
 *
 * @example
 * ```ts
 * declare const server: import("./mcp-config.js").McpServerConfig;
 * declare const listedTool: import("@modelcontextprotocol/sdk/types.js").Tool; // as tools/list gave it
 * declare const connection: import("./upstream-connection.js").UpstreamConnection;
 * const menu: import("../tool/tool.js").Tool[] = [];
 * const outcome = defineUpstreamTool(server, listedTool, connection);
 * if (outcome.status === "defined") menu.push(outcome.tool);
 * ```
 */
export function defineUpstreamTool(
  server: McpServerConfig,
  tool: McpTool,
  connection: Pick<UpstreamConnection, "use">,
  // Set when its description asks for private data: then whatever it is, it carries data out.
  options: { readonly sends?: boolean } = {},
): UpstreamToolOutcome {
  const name = `${server.name}__${tool.name}`;
  if (!NAME_PATTERN.test(name)) {
    return {
      status: "skipped",
      reason: `"${name}" is not a usable tool name (letters, digits, _ and -, at most 64 characters)`,
    };
  }
  if (tool.execution?.taskSupport === "required") {
    return {
      status: "skipped",
      reason: "it runs only as a task, which docket does not support yet",
    };
  }
  const policyArgs: PolicyArgs = Object.hasOwn(server.policyArgs, tool.name)
    ? (server.policyArgs[tool.name] ?? {})
    : {};
  try {
    const defined = defineTool({
      name,
      description: describe(server.name, tool),
      input: tool.inputSchema as JsonSchema,
      writes: upstreamWrites(server, tool),
      openWorld: upstreamOpenWorld(server, tool),
      ...(options.sends === true ? { sends: true } : {}),
      // Progress extends the SDK's idle deadline; this one only caps the whole call.
      timeoutMs: Math.min(server.maxTotalTimeoutMs + DEADLINE_GRACE_MS, 2_147_483_647),
      policyArgs,
      handler: upstreamToolHandler(connection, tool.name),
      shape: shapeCallResult,
    });
    return { status: "defined", tool: defined };
  } catch (error) {
    return { status: "skipped", reason: (error as Error).message };
  }
}
