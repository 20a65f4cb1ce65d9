import type { CheckpointOptions } from "../checkpoint/checkpoint-options.js";
import type { SystemEvent } from "../system-events/system-event.js";
import type { Tool } from "../tool/tool.js";
import {
  type ConnectMcpOptions,
  connectMcpServers,
  type McpUpstreams,
} from "./connect-mcp-servers.js";
import type { GatewayBackend } from "./gateway-backend.js";
import { createLiveCheckpoint, type LiveCheckpoint } from "./live-checkpoint.js";
import type { McpConfig } from "./mcp-config.js";
import type { McpLogger } from "./mcp-log.js";

/** `createCheckpoint`'s options, with MCP servers beside the local tools. */
export interface GatewayBackendOptions extends Omit<CheckpointOptions, "tools"> {
  /** Local tools (built-in, your own), listed before the MCP servers' tools. */
  readonly tools?: Iterable<Tool>;
  /** The `mcp:` section: servers whose tools join the menu. */
  readonly mcp?: McpConfig;
  readonly log?: McpLogger;
  /** For servers with `sandbox: true`: the sandbox settings and workspace to run them with. */
  readonly sandbox?: ConnectMcpOptions["sandbox"];
  /** The lock file that pins the servers' tools (see `ConnectMcpOptions.pins`). */
  readonly pins?: string;
  /** Answers sandboxed servers' ask network rules (see `ConnectMcpOptions.networkApprover`). */
  readonly networkApprover?: ConnectMcpOptions["networkApprover"];
  /** Run after the servers are stopped by `close()` (close a store, say). */
  readonly onClose?: () => Promise<void> | void;
}

/** A backend whose menu follows the MCP servers. */
export interface McpGatewayBackend extends GatewayBackend {
  readonly checkpoint: LiveCheckpoint;
  readonly upstreams: McpUpstreams;
}

/**
 * Connect the MCP servers and put one checkpoint over local tools and theirs; when a server's
 * menu changes, the checkpoint is rebuilt first and listeners (the gateway's sessions) are told
 * after. What `docket gateway`'s `buildCheckpoint` needs, given a loaded config.
 *
 * @example
 * ```ts
 * import { builtinTools } from "../builtin/builtin-tools.js";
 * const backend = await createGatewayBackend({
 *   tools: builtinTools({ workspace: "." }),
 *   mcp: { servers: { files: { command: "mcp-server-filesystem", args: ["."] } } },
 *   policy: { rules: [{ decision: "deny", tool: "files__write_file" }] },
 * });
 * const result = await backend.checkpoint.dispatch({ id: "c1", name: "files__list_directory", arguments: '{"path":"."}' });
 * await backend.close();
 * ```
 */
export async function createGatewayBackend({
  tools: local = [],
  mcp = { servers: {} },
  log,
  onClose,
  sandbox,
  pins,
  networkApprover,
  ...checkpointOptions
}: GatewayBackendOptions = {}): Promise<McpGatewayBackend> {
  const localTools = [...local];
  const listeners = new Set<() => void>();
  let checkpoint: LiveCheckpoint | undefined;
  const upstreams = await connectMcpServers(mcp, {
    ...(log === undefined ? {} : { log }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(pins === undefined ? {} : { pins }),
    ...(networkApprover === undefined ? {} : { networkApprover }),
    onToolsChanged: () => {
      checkpoint?.refresh();
      for (const listener of listeners) listener();
    },
  });
  try {
    checkpoint = createLiveCheckpoint({
      ...checkpointOptions,
      tools: () => [...localTools, ...upstreams.tools()],
    });
  } catch (error) {
    await upstreams.close();
    throw error;
  }
  const live = checkpoint;
  // The store's sink takes system events too: its event union holds them.
  const sink = checkpointOptions.store as
    | { emit(event: SystemEvent): void | Promise<void> }
    | undefined;
  const { principal } = checkpointOptions;
  return {
    ...(principal === undefined ? {} : { principal }),
    ...(sink === undefined
      ? {}
      : {
          async recordSystemEvent(event: SystemEvent) {
            await sink.emit(event);
          },
        }),
    checkpoint: live,
    upstreams,
    tools: () => live.tools,
    onToolsChanged(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await upstreams.close();
      await onClose?.();
    },
  };
}
