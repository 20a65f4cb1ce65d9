import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { PlantNote } from "../sandbox/move-aside-planted.js";
import type { NetworkApprover } from "../sandbox/network/network-connection.js";
import type { CallsInFlight } from "./calls-in-flight.js";
import type { McpServerConfig } from "./mcp-config.js";
import { ProcessTransport } from "./process-transport.js";

/** A transport to one upstream server, with the process behind it when docket started one. */
export interface UpstreamTransport {
  readonly transport: Transport;
  /** Set for stdio servers. */
  readonly process: ProcessTransport | undefined;
}

/**
 * Make the transport for a server's config: a process in its own group for stdio, Streamable
 * HTTP with the configured headers otherwise.
 *
 * @example
 * ```ts
 * declare const server: import("./mcp-config.js").McpServerConfig;
 * declare const log: (level: "debug" | "error", text: string) => void;
 * const { transport, process } = createUpstreamTransport(server, (line) => log("debug", line), (notice) => log("error", notice.text));
 * ```
 */
export function createUpstreamTransport(
  server: McpServerConfig,
  onStderr: (line: string) => void,
  onNotice?: (notice: PlantNote) => void,
  calls?: CallsInFlight,
  networkApprover?: NetworkApprover,
): UpstreamTransport {
  if (server.transport === "stdio") {
    const process = new ProcessTransport({
      command: server.command,
      args: server.args,
      env: server.env,
      cwd: server.cwd,
      sandbox: server.sandbox,
      onStderr,
      // In the trail of the calls being served; with none in flight, the operator's log.
      onNetworkConnection: (connection) => {
        if (calls?.record(connection) !== true)
          onStderr(`docket network: ${JSON.stringify(connection)}`);
      },
      ...(onNotice ? { onNotice } : {}),
      // An ask is the call's in flight, as the trail's line is; with none in flight, refused.
      ...(networkApprover && calls ? { networkApprover: calls.approver(networkApprover) } : {}),
    });
    return { transport: process, process };
  }
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { ...server.headers } },
  });
  return { transport, process: undefined };
}
