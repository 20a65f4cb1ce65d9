import { createGatewayBackend } from "../mcp/create-gateway-backend.js";
import { lockFileBeside } from "../mcp/tool-pins.js";
import { buildRuntime } from "./build-runtime.js";
import type { GatewayCommandOptions } from "./commands/gateway-command.js";

/**
 * What `docket gateway` serves, built from docket.yaml as a run builds it: the built-in tools,
 * the MCP upstreams, the policy, the store and approvals behind one checkpoint; each client's
 * session is a session in the store, listed and shown like a run's.
 *
 * @example
 * ```ts
 * import { registerGatewayCommand } from "./commands/gateway-command.js";
 * import { Command } from "commander";
 * const program = new Command("docket");
 * registerGatewayCommand(program, { buildCheckpoint: buildGatewayCheckpoint });
 * ```
 */
export async function buildGatewayCheckpoint({ config }: GatewayCommandOptions) {
  const runtime = await buildRuntime({
    config,
    terminal: false,
    connectMcp: false,
    approvalMode: "wait",
  });
  // A gateway outlives edits: a changed docket.yaml takes effect at the next call.
  runtime.watchPolicy();
  const maxSessions = runtime.cli.runtime.gateway.maxSessions;
  const backend = await createGatewayBackend({
    tools: runtime.tools,
    ...(runtime.cli.runtime.mcp ? { mcp: runtime.cli.runtime.mcp } : {}),
    sandbox: { settings: runtime.sandbox, workspace: runtime.workspace },
    ...(runtime.cli.config?.file === undefined
      ? {}
      : { pins: lockFileBeside(runtime.cli.config.file) }),
    policy: runtime.policy,
    taint: runtime.cli.runtime.taint,
    flow: runtime.flow,
    store: runtime.store,
    principal: runtime.cli.runtime.principal,
    ...(runtime.approvals ? { approvals: runtime.approvals } : {}),
    // A sandboxed server's asked connection goes to the queue as a `run_command`'s does.
    ...(runtime.networkApprover ? { networkApprover: runtime.networkApprover } : {}),
    ...(runtime.telemetry ? { telemetry: runtime.telemetry } : {}),
    onClose: () => runtime.close(),
  });
  const principal = runtime.cli.runtime.principal;
  return {
    ...backend,
    ...(maxSessions === undefined ? {} : { maxSessions }),
    settings: runtime.cli.runtime.gateway,
    openSession: async (id: string, transport: "stdio" | "http", who = principal) => {
      if (await runtime.store.getSession(id)) return;
      await runtime.store.createSession({
        id,
        principal: who,
        configHash: runtime.configHash,
        title: `docket gateway (${transport})`,
        metadata: { gateway: transport },
      });
    },
  };
}
