import { DocketError } from "../errors/docket-error.js";
import type { NetworkApprover } from "../sandbox/network/network-connection.js";
import type { SandboxSettings } from "../sandbox/sandbox-settings.js";
import type { Tool } from "../tool/tool.js";
import { type McpConfig, resolveMcpConfig } from "./mcp-config.js";
import { type McpLogger, stderrLogger } from "./mcp-log.js";
import { PinBook } from "./pin-book.js";
import { ServerMenu, type ToolStanding } from "./server-menu.js";
import { UpstreamConnection, type UpstreamStatus } from "./upstream-connection.js";

/** The tools of every configured MCP server, kept current. */
export interface McpUpstreams {
  /** The current menu: `SERVER__TOOL` entries, in config order. Same array until it changes. */
  tools(): readonly Tool[];
  /** Each server's connection state (pid, restarts), in config order. */
  status(): UpstreamStatus[];
  /** Every listed tool of each server and how it stands (offered, held by its pin, refused). */
  standings(): { readonly server: string; readonly tools: readonly ToolStanding[] }[];
  /** The lock file in use, when tools are pinned. */
  readonly pins: PinBook | undefined;
  /** Stop every server (whole process groups) and disconnect. */
  close(): Promise<void>;
}

/** Options for `connectMcpServers`. */
export interface ConnectMcpOptions {
  /** Called with the new menu after a server announced a change (or restarted with another). */
  readonly onToolsChanged?: (tools: readonly Tool[]) => void;
  /** Where lines about servers go (skipped tools, crashes, restarts). Default: stderr. */
  readonly log?: McpLogger;
  /** For servers with `sandbox: true`: the runtime's sandbox settings and workspace. */
  readonly sandbox?: { readonly settings: SandboxSettings; readonly workspace: string };
  /**
   * The lock file that pins outside tools (`docket.lock.json` beside docket.yaml): a tool whose
   * name, description, schema or annotations differ from its pin, or that is new, is not offered
   * until accepted. A server the file has never seen is pinned on first sight. Default: none.
   */
  readonly pins?: string;
  /**
   * Answers the ask network rules of sandboxed servers' connections (a durable approver,
   * `createDurableNetworkApprover`): each ask is bound to the call the server is serving.
   * Without one, such an ask is refused.
   */
  readonly networkApprover?: NetworkApprover;
}

/**
 * Start or connect to every server of an `mcp:` section and list their tools (all pages). The
 * tools join the menu as `SERVER__TOOL`, defined with `defineTool`, so only the checkpoint can
 * run them. A server that cannot be started is an error at start (the others are stopped).
 *
 * @example
 * ```ts
 * import { createLiveCheckpoint, type LiveCheckpoint } from "./live-checkpoint.js";
 * declare const policy: import("../policy/policy.js").PolicyInput;
 * let checkpoint: LiveCheckpoint | undefined;
 * const upstreams = await connectMcpServers(
 *   { servers: { everything: { command: "mcp-server-everything", args: ["stdio"] } } },
 *   { onToolsChanged: () => checkpoint?.refresh() },
 * );
 * checkpoint = createLiveCheckpoint({ tools: () => upstreams.tools(), policy });
 * await upstreams.close();
 * ```
 */
export async function connectMcpServers(
  config: McpConfig,
  {
    onToolsChanged,
    log = stderrLogger,
    sandbox,
    pins: lockFile,
    networkApprover,
  }: ConnectMcpOptions = {},
): Promise<McpUpstreams> {
  const servers = resolveMcpConfig(config).map((server) =>
    server.transport === "stdio" && server.sandbox && sandbox
      ? { ...server, sandbox: { ...server.sandbox, ...sandbox } }
      : server,
  );
  const pins = lockFile === undefined ? undefined : new PinBook(lockFile);
  let menu: readonly Tool[] = Object.freeze([]);
  let ready = false;
  const parts: { connection: UpstreamConnection; menu: ServerMenu }[] = [];

  const rebuild = () => {
    const seen = new Set<string>();
    const tools: Tool[] = [];
    for (const part of parts) {
      for (const tool of part.menu.tools) {
        if (seen.has(tool.name)) continue;
        seen.add(tool.name);
        tools.push(tool);
      }
    }
    menu = Object.freeze(tools);
  };

  for (const server of servers) {
    const part = {} as { connection: UpstreamConnection; menu: ServerMenu };
    part.connection = new UpstreamConnection(server, {
      log,
      networkApprover,
      onTools: (listed) => {
        if (!part.menu.update(listed) || !ready) return;
        rebuild();
        onToolsChanged?.(menu);
      },
    });
    part.menu = new ServerMenu(server, part.connection, log, pins);
    parts.push(part);
  }

  const started = await Promise.allSettled(parts.map((part) => part.connection.start()));
  const failed = started.flatMap((outcome) =>
    outcome.status === "rejected" ? [(outcome.reason as Error).message] : [],
  );
  if (failed.length > 0) {
    await Promise.all(parts.map((part) => part.connection.close()));
    throw new DocketError("mcp_start_failed", failed.join("; "));
  }
  rebuild();
  ready = true;

  return {
    tools: () => menu,
    status: () => parts.map((part) => part.connection.status),
    standings: () =>
      parts.map((part, i) => ({ server: servers[i]?.name ?? "", tools: part.menu.standings })),
    pins,
    close: async () => {
      await Promise.all(parts.map((part) => part.connection.close()));
    },
  };
}
