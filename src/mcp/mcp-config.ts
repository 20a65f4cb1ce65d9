import { z } from "zod";
import { sandboxNetworkSchema, toNetworkFilter } from "../config/network-section.js";
import { DocketError } from "../errors/docket-error.js";
import type { SandboxNetworkFilter } from "../sandbox/network/network-filter.js";
import type { SandboxNetwork, SandboxSettings } from "../sandbox/sandbox-settings.js";

/** Longest deadline a timer can hold (setTimeout's signed 32-bit limit). */
const MAX_TIMER_MS = 2_147_483_647 - 60_000;

/**
 * A server's name becomes the prefix of its tools (`NAME__tool`), so it may not contain `__`
 * (the separator) nor start or end with `_`: `a__b__c` must read one way only.
 */
const SERVER_NAME = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$/;

const policyArgsSchema = z.strictObject({
  command: z.string().min(1).optional(),
  path: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
  url: z.string().min(1).optional(),
});

const serverSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    trusted: z.boolean().default(false),
    descriptions: z.enum(["warn", "strip", "refuse"]).default("warn"),
    new_tools: z.enum(["hold", "offer"]).default("hold"),
    writes: z.union([z.boolean(), z.record(z.string(), z.boolean())]).optional(),
    policy_args: z.record(z.string(), policyArgsSchema).optional(),
    timeout_ms: z.number().int().positive().max(MAX_TIMER_MS).default(60_000),
    max_total_timeout_ms: z.number().int().positive().max(MAX_TIMER_MS).default(600_000),
    sandbox: z
      .union([z.boolean(), z.strictObject({ network: sandboxNetworkSchema.optional() })])
      .optional(),
  })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({
        code: "custom",
        message: "give either command (a stdio server) or url (a Streamable HTTP server)",
      });
    }
    const wrong = server.url === undefined ? ["headers"] : ["args", "env", "cwd", "sandbox"];
    for (const key of wrong) {
      if (server[key as keyof typeof server] !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: [key],
          message: `${key} applies only to ${server.url === undefined ? "Streamable HTTP" : "stdio"} servers`,
        });
      }
    }
    if (server.max_total_timeout_ms < server.timeout_ms) {
      ctx.addIssue({
        code: "custom",
        path: ["max_total_timeout_ms"],
        message: "must be at least timeout_ms",
      });
    }
  });

/**
 * The `mcp:` section of docket.yaml: outside MCP servers whose tools join the menu.
 *
 * @example
 * ```ts
 * const config = mcpConfigSchema.parse({
 *   servers: {
 *     files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."] },
 *     search: { url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer …" } },
 *   },
 * });
 * ```
 */
export const mcpConfigSchema = z.strictObject({
  servers: z
    .record(z.string(), serverSchema)
    .superRefine((servers, ctx) => {
      // Checked here rather than as a key schema, so that the message names the key plainly.
      for (const name of Object.keys(servers)) {
        if (name.length > 32 || !SERVER_NAME.test(name)) {
          ctx.addIssue({
            code: "custom",
            path: [name],
            message:
              "a server name is at most 32 letters, digits, - and single _ (not __, not at either end)",
          });
        }
      }
    })
    .default({}),
});

/** The `mcp:` section as written (defaults not yet applied). */
export type McpConfig = z.input<typeof mcpConfigSchema>;

/** One server as written in `mcp.servers`. */
export type McpServerInput = z.input<typeof serverSchema>;

/** What every server has, whatever its transport, with defaults applied. */
interface ServerCommon {
  readonly name: string;
  /** Whether its annotations may be believed (`readOnlyHint` makes a read only when trusted). */
  readonly trusted: boolean;
  /** A description that looks like instructions to the model: warn (default), strip or refuse. */
  readonly descriptions: "warn" | "strip" | "refuse";
  /** A tool a pinned server lists that the lock file does not: held until pinned (default), or offered. */
  readonly newTools: "hold" | "offer";
  readonly writes: boolean | Readonly<Record<string, boolean>> | undefined;
  readonly policyArgs: Readonly<Record<string, z.output<typeof policyArgsSchema>>>;
  /** How long a call may go without a response or a progress notification. */
  readonly timeoutMs: number;
  /** How long a call may take at most, progress or not. */
  readonly maxTotalTimeoutMs: number;
}

/** A server docket starts itself and talks to over stdin/stdout. */
export interface StdioServerConfig extends ServerCommon {
  readonly transport: "stdio";
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  /**
   * Set with `sandbox: true` (or `{ network }`): the server runs in the same bubblewrap sandbox
   * as run_command. `connectMcpServers` fills in the runtime's settings and workspace.
   */
  readonly sandbox: ServerSandbox | undefined;
}

/** How a stdio server is confined. */
export interface ServerSandbox {
  /** The server's own network setting (default none): a word, or hosts through docket's proxy. */
  readonly network: SandboxNetwork | SandboxNetworkFilter;
  /** The runtime's sandbox settings (hidden paths, limits), when given. */
  readonly settings?: SandboxSettings;
  /** The writable workspace (default: the server's cwd, else docket's). */
  readonly workspace?: string;
}

/** A server reached over Streamable HTTP. */
export interface HttpServerConfig extends ServerCommon {
  readonly transport: "http";
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** One upstream server, checked, with defaults applied. */
export type McpServerConfig = StdioServerConfig | HttpServerConfig;

/**
 * Check an `mcp:` section and turn it into one config per server. Throws
 * `DocketError("config_invalid")` naming the path of the first problem.
 *
 * @example
 * ```ts
 * const [server] = resolveMcpConfig({ servers: { everything: { command: "mcp-server-everything", args: ["stdio"] } } });
 * server?.transport; // "stdio"
 * ```
 */
export function resolveMcpConfig(config: McpConfig): McpServerConfig[] {
  const parsed = mcpConfigSchema.safeParse(config);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ["mcp", ...(issue?.path ?? [])].map(String).join(".");
    throw new DocketError("config_invalid", `${path}: ${issue?.message ?? "invalid"}`);
  }
  return Object.entries(parsed.data.servers).map(([name, server]) => {
    const common: ServerCommon = {
      name,
      trusted: server.trusted,
      descriptions: server.descriptions,
      newTools: server.new_tools,
      writes: server.writes,
      policyArgs: server.policy_args ?? {},
      timeoutMs: server.timeout_ms,
      maxTotalTimeoutMs: server.max_total_timeout_ms,
    };
    if (server.url !== undefined) {
      return { ...common, transport: "http", url: server.url, headers: server.headers ?? {} };
    }
    return {
      ...common,
      transport: "stdio",
      command: server.command ?? "",
      args: server.args ?? [],
      env: server.env ?? {},
      cwd: server.cwd,
      sandbox:
        server.sandbox === undefined || server.sandbox === false
          ? undefined
          : {
              network: serverNetwork(
                server.sandbox === true ? undefined : server.sandbox.network,
                name,
              ),
            },
    };
  });
}

// A server's own network: a word as written, or its host lists as a layer named after it.
function serverNetwork(
  network: z.output<typeof sandboxNetworkSchema> | undefined,
  name: string,
): SandboxNetwork | SandboxNetworkFilter {
  if (network === undefined) return "none";
  return typeof network === "string" ? network : toNetworkFilter(network, `mcp.${name}`);
}
